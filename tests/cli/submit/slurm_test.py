"""`shardrun submit --to slurm` on a real one-node Slurm cluster that scripts/slurm-local starts.

The cluster is private to this test (its own state directory and ports), started in setUpClass
and stopped in a class cleanup, which runs even when setUpClass fails. When it cannot start, the
test fails with the daemons' log tails: it is never skipped.

- An array of 2 elements x 2 ranks and its dependent merge job give the same results as one
  `shardrun run` of the same job under mpiexec.
- `srun --mpi=none shardrun run` (no PMIx for Open MPI) ends at once with one line of ours, exit 2.
- The graceful stop Slurm sends before a time limit (`--signal=B:USR1@<drain_timeout + 30>`,
  delivered here with `scancel --signal=USR1 --batch`) requeues the element, whose restart
  resumes: every task is ok exactly once in the merged file and no committed task runs again.
- A task longer than the element's real `--time` is drained before it can finish; the element
  ends with exit 4 and is not requeued (it used to requeue forever, issue 35, point 1).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

from harness import SHARDRUN, SOURCE_DIR, clean_env, run, scratch_dir
from jobs import h5py_module, write_job

SLURM_LOCAL = os.path.join(SOURCE_DIR, "scripts", "slurm-local")
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
            "BOOT_FAIL", "DEADLINE"}

# 16 tasks; each result follows from its parameters.
SWEEP = r'''
name: squares
task: exec
sweep:
  x: {range: [0, 8, 1]}
  s: [1, -1]
output: {path: OUT/squares.h5}
exec:
  argv: [sh, -c, 'printf "{{\"y\": %d, \"id\": %d}}" $(( {s} * ({x} * {x} + 1) )) {task_id} > "$SHARDRUN_RESULT"']
  results: {y: float64, id: int64}
'''

# 40 tasks of 0.5 s: 5 s per element of 2 ranks. A task marks its start, and its end once its
# result is written; an interrupted task (SIGTERM in the sleep) leaves no end mark.
# A done mark means the task exited 0 with its result: past its sleep it ignores SIGTERM, so the
# stop cannot kill it between writing the mark and exiting (a task killed there has its mark but
# failed, and rightly runs again; CI once saw that as a task run twice).
SLOW = r'''
name: slow
task: exec
sweep:
  x: {range: [0, 40, 1]}
output: {path: OUT/slow.h5}
exec:
  argv: [sh, -c, 'touch MARKS/start.{task_id}.$$; sleep 0.5; trap "" TERM; printf "{{\"y\": %d}}" {x} > "$SHARDRUN_RESULT"; exec touch MARKS/done.{task_id}.$$']
  results: {y: float64}
'''

# One task per element that cannot finish within a one-minute --time: the drain (5 s) cuts it short.
LONG = r'''
name: long
task: exec
drain_timeout: 5s
sweep:
  x: [0, 1]
output: {path: OUT/long.h5}
exec:
  argv: [sleep, "600"]
'''


def log(message):
    print(f"slurm_test: {message}", file=sys.stderr, flush=True)


class SlurmSubmitTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A fresh path that slurm-local creates (as root, through sudo when the test is not root) and
        # removes on stop.
        cls.slurm_dir = os.path.join(tempfile.gettempdir(), f"shardrun-slurm-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        cls.addClassCleanup(cls.stop_slurm)
        t0 = time.monotonic()
        proc = subprocess.run([SLURM_LOCAL, "start"], capture_output=True, text=True, timeout=180,
                              env=cls.slurm_local_env())
        if proc.returncode != 0:
            raise AssertionError(f"scripts/slurm-local start failed (exit {proc.returncode}):\n"
                                 f"{proc.stdout}{proc.stderr}")
        log(f"scripts/slurm-local start took {time.monotonic() - t0:.1f} s: {proc.stderr.strip()}")
        cls.env = clean_env({"SLURM_CONF": os.path.join(cls.slurm_dir, "slurm.conf"),
                             # sbatch exports this environment to the jobs; only the tests let
                             # Open MPI run as root.
                             "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})

    @classmethod
    def slurm_local_env(cls):
        return clean_env({"SHARDRUN_SLURM_DIR": cls.slurm_dir})

    @classmethod
    def stop_slurm(cls):
        proc = subprocess.run([SLURM_LOCAL, "stop"], capture_output=True, text=True, timeout=120,
                              env=cls.slurm_local_env())
        if proc.returncode != 0:
            log(f"scripts/slurm-local stop failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")

    # --- Slurm helpers -------------------------------------------------------------------------

    def slurm(self, *args, check=True, timeout=30):
        proc = subprocess.run(list(args), capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and proc.returncode != 0:
            self.fail(f"{' '.join(args)} failed (exit {proc.returncode}): {proc.stdout}{proc.stderr}"
                      + self.diagnostics())
        return proc.stdout

    def jobs(self):
        """Every job the controller knows (finished ones stay for MinJobAge): one dict per record."""
        out = self.slurm("scontrol", "show", "job", "-o", check=False)
        records = []
        for line in out.splitlines():
            if "JobId=" in line:
                records.append(dict(re.findall(r"(\w+)=(\S*)", line)))
        return records

    def diagnostics(self, work=None):
        parts = ["\n----- scontrol show job -----\n" + self.slurm("scontrol", "show", "job", check=False)]
        for path in sorted(glob.glob(os.path.join(work or "/nonexistent", "*.submit", "slurm", "*.out"))):
            with open(path, errors="replace") as f:
                parts.append(f"----- {path} -----\n{f.read()[-4000:]}")
        for path in sorted(glob.glob(os.path.join(self.slurm_dir, "log", "*"))):
            with open(path, errors="replace") as f:
                parts.append(f"----- {path} (tail) -----\n" + "".join(f.readlines()[-25:]))
        return "\n".join(parts)

    def submit(self, work, job, array, *options):
        """`shardrun submit --to slurm`; returns (array job id, merge job id), found in the controller."""
        known = {r["JobId"] for r in self.jobs()}
        proc = subprocess.run([SHARDRUN, "submit", job, "--to", "slurm", "--array", str(array), "--nodes", "1",
                               "--ranks-per-node", "2", "--shardrun", SHARDRUN, *options],
                              capture_output=True, text=True, env=self.env, cwd=work, timeout=60)
        self.assertEqual(proc.returncode, 0, f"shardrun submit failed:\n{proc.stdout}{proc.stderr}")
        new = [r for r in self.jobs() if r["JobId"] not in known]
        arrays = {r["ArrayJobId"] for r in new if "ArrayJobId" in r}
        merges = [r for r in new if "ArrayJobId" not in r]
        self.assertEqual(len(arrays), 1, f"expected one new array job:\n{proc.stdout}" + self.diagnostics(work))
        self.assertEqual(len(merges), 1, f"expected one new merge job:\n{proc.stdout}" + self.diagnostics(work))
        array_id, merge = arrays.pop(), merges[0]
        if merge.get("Dependency", "(null)") != "(null)":  # (null) once the array has ended
            self.assertIn(f"afterany:{array_id}", merge["Dependency"], merge)
        for job_id in (array_id, merge["JobId"]):
            self.assertRegex(proc.stdout, rf"\b{job_id}\b", "submit prints the job ids")
        return array_id, merge["JobId"]

    def wait_for(self, work, array_id, merge_id, timeout):
        """Waits until the merge job (which runs after every element) has ended; returns the records."""
        deadline = time.monotonic() + timeout
        while True:
            records = self.jobs()
            merge = next((r for r in records if r["JobId"] == merge_id), None)
            self.assertIsNotNone(merge, f"merge job {merge_id} vanished" + self.diagnostics(work))
            if merge["JobState"] in TERMINAL:
                break
            if time.monotonic() > deadline:
                self.fail(f"jobs {array_id} and {merge_id} did not finish in {timeout} s" + self.diagnostics(work))
            time.sleep(0.5)
        # A pending rest of the array has a range ("1-3") here; only started elements have a number.
        elements = {int(r["ArrayTaskId"]): r for r in records
                    if r.get("ArrayJobId") == array_id and r.get("ArrayTaskId", "").isdigit()}
        return elements, merge

    def check_finished(self, work, elements, merge, array):
        self.assertEqual(sorted(elements), list(range(array)), "array elements" + self.diagnostics(work))
        for index, record in elements.items():
            self.assertEqual((record["JobState"], record["ExitCode"]), ("COMPLETED", "0:0"),
                             f"element {index}" + self.diagnostics(work))
        self.assertEqual((merge["JobState"], merge["ExitCode"]), ("COMPLETED", "0:0"),
                         "merge job" + self.diagnostics(work))

    # --- the cases -----------------------------------------------------------------------------

    def test_array_and_merge_match_a_single_run(self):
        t0 = time.monotonic()
        work = scratch_dir()
        job = write_job(work, SWEEP.replace("OUT", work))
        # Slurm's own options reach it (the steps get --cpus-per-task too), and the merge job has its own time.
        array_id, merge_id = self.submit(work, job, 2, "--cpus-per-task", "1", "--mem", "200M", "--merge-time", "10",
                                         "--sbatch", "comment=shardrun-slurm-test")
        self.assertTrue(os.path.exists(os.path.join(work, "squares.h5.submit", "slurm", "run.sbatch")))
        self.assertTrue(os.path.exists(os.path.join(work, "squares.h5.submit", "slurm", "merge.sbatch")))
        elements, merge = self.wait_for(work, array_id, merge_id, timeout=120)
        self.check_finished(work, elements, merge, 2)
        self.assertEqual(merge["TimeLimit"], "00:10:00", merge)
        for record in elements.values():
            self.assertEqual((record["MinMemoryNode"], record["Comment"]), ("200M", "shardrun-slurm-test"), record)
        log(f"array of 2 x 2 ranks and merge: {time.monotonic() - t0:.1f} s")

        reference = os.path.join(work, "reference.h5")
        proc = run(["run", job, "--set", f"output.path={reference}", "--progress", "quiet"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

        h5py = h5py_module()
        with h5py.File(os.path.join(work, "squares.h5"), "r") as merged, h5py.File(reference, "r") as single:
            self.assertTrue(bool(merged.attrs["complete"]))
            self.assertEqual(merged["tasks/status"][:].tolist(), [1] * 16)
            self.assertEqual(merged["results/id"][:].tolist(), list(range(16)))
            for name in ("results/y", "results/id", "params/x", "params/s"):
                self.assertEqual(merged[name][:].tolist(), single[name][:].tolist(), name)
            expected = [s * (x * x + 1) for x in range(8) for s in (1, -1)]
            self.assertEqual(merged["results/y"][:].tolist(), expected)

    def test_srun_without_pmix_is_one_line_of_ours(self):
        # What a site with MpiDefault=none gets: Open MPI would print its 30-line "not built with
        # SLURM's PMI support"; shardrun says what to do before MPI_Init, once, and writes nothing.
        work = scratch_dir()
        job = write_job(work, SWEEP.replace("OUT", work))
        proc = subprocess.run(["srun", "--mpi=none", "-N1", "-n2", SHARDRUN, "run", job, "--progress", "quiet"],
                              capture_output=True, text=True, env=self.env, cwd=work, timeout=120)

        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr + self.diagnostics())
        ours = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(ours), 1, proc.stderr)
        log(f"srun --mpi=none: {ours[0]}")
        self.assertRegex(ours[0], r"^shardrun: started by srun with --mpi=none in Slurm job \d+, but this Open MPI "
                                  r"starts only with PMIx: use srun --mpi=pmix \(srun --mpi=list offers: [^)]*pmix[^)]*\) "
                                  r"or mpirun inside the allocation \(see docs/troubleshooting\.md#srun-without-pmix\)$")
        self.assertNotIn("PMI support", proc.stdout + proc.stderr)
        self.assertEqual(sorted(os.listdir(work)), [os.path.basename(job)], "nothing written")

    def test_graceful_stop_requeues_and_resumes(self):
        t0 = time.monotonic()
        work = scratch_dir()
        marks = os.path.join(work, "marks")
        os.makedirs(marks)
        job = write_job(work, SLOW.replace("OUT", work).replace("MARKS", marks))
        output = os.path.join(work, "slow.h5")
        array_id, merge_id = self.submit(work, job, 2)

        # Wait until element 0 runs and has committed a few tasks, then stop it as Slurm would.
        deadline = time.monotonic() + 90
        committed = 0
        while committed < 2:
            if time.monotonic() > deadline:
                self.fail("element 0 committed no tasks in 90 s" + self.diagnostics(work))
            time.sleep(0.25)
            status = run(["status", "--json", output], timeout=30)
            if status.returncode not in (0, 1, 3, 4):  # status's exit codes; 2: nothing readable yet
                continue
            try:
                ranks = json.loads(status.stdout)["ranks"]
            except (ValueError, KeyError):
                continue
            committed = sum(r["ok"] for r in ranks if r["array_index"] == 0)
        element0 = f"{array_id}_0"
        state = next(r["JobState"] for r in self.jobs() if r.get("ArrayJobId") == array_id
                     and r.get("ArrayTaskId") == "0")
        self.assertEqual(state, "RUNNING", "element 0 finished before it could be stopped")
        self.slurm("scancel", "--signal=USR1", "--batch", element0)
        log(f"sent USR1 to {element0} after {time.monotonic() - t0:.1f} s, {committed} tasks committed")

        elements, merge = self.wait_for(work, array_id, merge_id, timeout=180)
        self.check_finished(work, elements, merge, 2)
        self.assertGreaterEqual(int(elements[0]["Restarts"]), 1, "element 0 was not requeued" + self.diagnostics(work))
        self.assertEqual(elements[1]["Restarts"], "0")
        log(f"graceful stop, requeue, resume and merge: {time.monotonic() - t0:.1f} s")

        # The first run stopped gracefully (shardrun exit 3 after SIGTERM, not SIGKILL), the restart finished.
        logs = glob.glob(os.path.join(work, "slow.h5.submit", "slurm", f"*{array_id}_0*"))
        self.assertEqual(len(logs), 1, logs)
        with open(logs[0], errors="replace") as f:
            text = f.read()
        # scancel --signal=USR1 reaches the tasks too: one that dies of it while the job drains is
        # interrupted (run again by the resume), never failed.
        self.assertNotIn("killed by signal 10", text, "a task ended by the drain's SIGUSR1 was counted as failed")
        self.assertIn("interrupted by SIGUSR1", text)
        stopped, finished = text.find("slow INTERRUPTED"), text.rfind("slow finished")
        self.assertTrue(0 <= stopped < finished,
                        "element 0's log (it needs #SBATCH --open-mode=append to keep the first run) "
                        f"should show the interrupted run, then the finished one:\n{text}")

        h5py = h5py_module()
        with h5py.File(output, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 40)
            self.assertEqual(f["results/y"][:].tolist(), [float(x) for x in range(40)])
            # Every attempt recorded (issue 35, point 3): a task the drain cut short has that
            # attempt, interrupted, before the requeued run's, on a named host, and counts both.
            counts = f["tasks/attempts"][:].tolist()
            per_task = {}
            for task, interrupted, host in zip(f["attempts/task"][:].tolist(), f["attempts/interrupted"][:].tolist(),
                                               f["attempts/host"].asstr()[:]):
                per_task.setdefault(task, []).append(interrupted)
                self.assertTrue(host, "an attempt without its host")
        self.assertEqual(sorted(per_task), list(range(40)))
        for task, n in enumerate(counts):
            self.assertEqual(per_task[task], [1] * (n - 1) + [0], f"task {task}")
        done = sorted(int(name.split(".")[1]) for name in os.listdir(marks) if name.startswith("done."))
        self.assertEqual(done, list(range(40)), "every task must complete exactly once: a committed task ran again")
        started = [name for name in os.listdir(marks) if name.startswith("start.")]
        # Every attempt that started the program is in /attempts (one cut short before its first
        # command would be recorded without a mark).
        self.assertLessEqual(len(started), sum(counts), "an attempt that ran is missing from /attempts")
        log(f"{len(started) - 40} task(s) interrupted by the stop ran again")

    def test_a_task_longer_than_the_time_limit_is_not_requeued(self):
        t0 = time.monotonic()
        work = scratch_dir()
        job = write_job(work, LONG.replace("OUT", work))
        array_id, merge_id = self.submit(work, job, 2, "--time", "1")
        with open(os.path.join(work, "long.h5.submit", "slurm", "run.sbatch")) as f:
            self.assertIn("#SBATCH --signal=B:USR1@35\n", f.read(), "the lead follows drain_timeout (5 s) + 30 s")

        elements, merge = self.wait_for(work, array_id, merge_id, timeout=240)
        log(f"a task longer than --time 1: the elements ended after {time.monotonic() - t0:.1f} s")
        self.assertEqual(sorted(elements), [0, 1], "array elements" + self.diagnostics(work))
        for index, record in elements.items():
            self.assertEqual((record["JobState"], record["ExitCode"], record["Restarts"]), ("FAILED", "4:0", "0"),
                             f"element {index} must end once, exit 4, unrequeued" + self.diagnostics(work))
            logs = glob.glob(os.path.join(work, "long.h5.submit", "slurm", f"*{array_id}_{index}*"))
            self.assertEqual(len(logs), 1, logs)
            with open(logs[0], errors="replace") as f:
                text = f.read()
            self.assertRegex(text, r"NO PROGRESS: no task finished in this run; (task #\d+ ran [0-9.]+s and was cut short "
                                   r"by the drain|the drain came before any task started)", text)
            self.assertIn(f"array element {index} made no progress before it was drained", text)
            self.assertNotIn("requeueing", text)
        self.assertNotEqual(merge["ExitCode"], "0:0", "the merge of an incomplete array must not look complete")


if __name__ == "__main__":
    unittest.main(verbosity=2)
