"""Issue 39, the Slurm tutorial's trial: what the generated scripts tell a user. The rerun hints name
the run.sbatch that submit wrote (never $0, Slurm's spool copy), the trap's time left is this
element's one value, merge.sbatch says "lacks array elements" only when merge names missing ones,
and a refused sbatch leaves an earlier submission's files as they were. The scripts run in bash
with stand-ins for Slurm's commands (fake_slurm.py); the real cluster runs in slurm_test.py."""
import os
import shutil
import signal
import subprocess
import time
import unittest
from types import SimpleNamespace

from fake_slurm import fake_slurm
from harness import clean_env, run, scratch_dir
from jobs import write_job
from submit_support import JOB, Submitted


def run_as_slurm(test, s, bin_dir, usr1=True, **variables):
    """Runs a copy of run.sbatch from a spool folder, as slurmd does, and sends it SIGUSR1 once the
    step runs; the (process, stdout, stderr)."""
    spool = os.path.join(s.work, "spool", "job8881901")
    os.makedirs(spool, exist_ok=True)
    script = os.path.join(spool, "slurm_script")
    shutil.copy(s.path("run.sbatch"), script)
    env = clean_env({"PATH": bin_dir + ":" + os.environ["PATH"], "FAKE_HOLD": "1", **variables})
    proc = subprocess.Popen(["bash", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 30
        while not os.path.exists(os.path.join(s.work, "srun.pid")) and time.time() < deadline:
            time.sleep(0.05)
        if usr1:
            proc.send_signal(signal.SIGUSR1)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc, out, err


ELEMENT_2 = {"SLURM_JOB_ID": "42", "SLURM_ARRAY_JOB_ID": "40", "SLURM_ARRAY_TASK_ID": "2"}


class RerunHintsTest(unittest.TestCase):
    def test_no_progress_names_the_script_submit_wrote(self):
        s = Submitted(self, "slurm", "--array", "4", "--dry-run")
        proc, out, err = run_as_slurm(self, s, fake_slurm(s.work), FAKE_DRAIN_EXIT="4", **ELEMENT_2)
        self.assertEqual(proc.returncode, 4, out + err)
        self.assertIn(f"then: sbatch --array=2 {s.dir}/run.sbatch (see docs/troubleshooting.md#slurm-requeue)", err)
        self.assertNotIn("spool", err)
        self.assertFalse(os.path.exists(os.path.join(s.work, "scontrol.args")), "exit 4 is never requeued")

    def test_max_requeues_names_the_script_submit_wrote(self):
        s = Submitted(self, "slurm", "--array", "4", "--max-requeues", "2", "--dry-run")
        proc, out, err = run_as_slurm(self, s, fake_slurm(s.work), SLURM_RESTART_COUNT="2", **ELEMENT_2)
        self.assertEqual(proc.returncode, 3, out + err)
        self.assertIn(f"continue it with: sbatch --array=2 {s.dir}/run.sbatch (see", err)
        self.assertNotIn("spool", err)

    def test_single_job_hint_and_a_path_the_shell_must_not_expand(self):
        work = scratch_dir(self)
        folder = os.path.join(work, "a b$HOME")
        os.makedirs(folder)
        job = write_job(folder, JOB)
        proc = run(["submit", job, "--to", "slurm", "--dry-run"], cwd=folder)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        folder = os.path.join(folder, "out", "squares.h5.submit", "slurm")
        s = SimpleNamespace(work=work, dir=folder, path=lambda name: os.path.join(folder, name))
        proc, out, err = run_as_slurm(self, s, fake_slurm(work), FAKE_DRAIN_EXIT="4", SLURM_JOB_ID="7")
        self.assertEqual(proc.returncode, 4, out + err)
        # Quoted for the shell, printed as it is: copied into a terminal it submits that very file.
        self.assertIn(f"then: sbatch '{s.dir}/run.sbatch' (see", err)


class TimeLeftTest(unittest.TestCase):
    def test_time_left_is_this_elements_one_value(self):
        # The array's own id (40) is also the job id of one element: squeue -j 40 lists every element.
        s = Submitted(self, "slurm", "--array", "4", "--dry-run")
        proc, out, err = run_as_slurm(self, s, fake_slurm(s.work), SLURM_JOB_ID="40", SLURM_ARRAY_JOB_ID="40",
                                      SLURM_ARRAY_TASK_ID="2", FAKE_TIME_LEFT="40_1=1:00 40_2=0:30 40_3=0:45")
        self.assertEqual(proc.returncode, 3, out + err)
        line = [line for line in out.splitlines() if "SIGUSR1 to the batch script" in line]
        self.assertEqual(len(line), 1, out)
        self.assertIn("(time left: 0:30; --signal=B:USR1@120", line[0])
        # Exact about Slurm's timing (sbatch(1), --signal): the lead, or up to 60 s more.
        self.assertIn("Slurm sends it 120 s before the time limit, or up to 60 s earlier)", line[0])
        self.assertNotIn("1:00", out)
        self.assertNotIn("0:45", out)


def run_merge(s):
    return subprocess.run(["bash", s.path("merge.sbatch")], capture_output=True, text=True, env=clean_env())


def run_element(test, s, index, count=2):
    proc = run(["run", s.path("job.yaml"), "-q", "--array-index", str(index), "--array-count", str(count)],
               cwd=s.work, env={"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    test.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)


class MergeScriptTest(unittest.TestCase):
    def test_missing_elements_are_named_with_their_rerun(self):
        s = Submitted(self, "slurm", "--array", "3", "--dry-run")
        run_element(self, s, 1, count=3)
        merge = run_merge(s)
        self.assertEqual(merge.returncode, 1, merge.stdout + merge.stderr)
        self.assertIn("array elements never started: 0, 2", merge.stderr)
        self.assertIn(f"{s.output} lacks array elements 0,2 ", merge.stderr)
        self.assertIn(f"rerun them with: sbatch --array=0,2 {s.dir}/run.sbatch (they resume)", merge.stderr)

    def test_a_merge_that_failed_otherwise_claims_no_missing_element(self):
        s = Submitted(self, "slurm", "--array", "2", "--dry-run")
        run_element(self, s, 0)
        run_element(self, s, 1)
        os.makedirs(s.output)  # the master file cannot be written: a folder holds its name
        merge = run_merge(s)
        self.assertNotEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assertNotIn("lacks array elements", merge.stderr)
        self.assertNotIn("sbatch --array", merge.stderr)
        self.assertIn("with no array element missing; its lines above say why", merge.stderr)
        self.assertGreaterEqual(len(merge.stderr.splitlines()), 2, "merge's own line comes first")

    def test_complete_merge_says_nothing_more(self):
        s = Submitted(self, "slurm", "--array", "2", "--dry-run")
        run_element(self, s, 0)
        run_element(self, s, 1)
        merge = run_merge(s)
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assertIn("merged 2 of 2 array element(s)", merge.stdout)
        self.assertEqual(merge.stderr, "")


def fake_sbatch(work):
    """An sbatch that keeps each script it is given (submitted-N) and refuses --partition nosuch."""
    bin_dir = os.path.join(work, "sbatchbin")
    os.makedirs(bin_dir)
    path = os.path.join(bin_dir, "sbatch")
    with open(path, "w") as f:
        f.write(f"""#!/bin/bash
for script; do :; done
if grep -q -- '--partition=nosuch' "$script"; then
    echo "sbatch: error: invalid partition specified: nosuch" >&2; exit 1
fi
n=$(ls {work}/submitted-* 2>/dev/null | wc -l)
cp "$script" {work}/submitted-$n
echo $((8881901 + n))
""")
    os.chmod(path, 0o755)
    return bin_dir


class RefusedSubmitTest(unittest.TestCase):
    def test_a_refused_submission_changes_nothing(self):
        work = scratch_dir(self)
        job = write_job(work, JOB)
        env = {"PATH": fake_sbatch(work) + ":" + os.environ["PATH"]}
        folder = os.path.join(work, "out", "squares.h5.submit", "slurm")
        first = run(["submit", job, "--to", "slurm", "--array", "2", "--time", "30"], cwd=work, env=env)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        self.assertIn("job 8881901 (elements 0-1), merge job 8881902", first.stdout)
        before = {name: open(os.path.join(folder, name)).read() for name in os.listdir(folder)}
        self.assertEqual(sorted(before), ["job.yaml", "merge.sbatch", "run.sbatch"])
        self.assertEqual(before["run.sbatch"], open(os.path.join(work, "submitted-0")).read(), "sbatch got run.sbatch")

        with open(job, "a") as f:
            f.write("retries: 2\n")  # the job file changed too: its copy must not
        refused = run(["submit", job, "--to", "slurm", "--array", "2", "--partition", "nosuch"], cwd=work, env=env)
        self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
        self.assertIn("nothing more was submitted", refused.stderr)
        after = {name: open(os.path.join(folder, name)).read() for name in os.listdir(folder)}
        self.assertEqual(after, before, "the queued job's files, unchanged and nothing left beside them")

        again = run(["submit", job, "--to", "slurm", "--array", "2", "--partition", "cpu"], cwd=work, env=env)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual(sorted(os.listdir(folder)), ["job.yaml", "merge.sbatch", "run.sbatch"])
        script = open(os.path.join(folder, "run.sbatch")).read()
        self.assertIn("#SBATCH --partition=cpu\n", script)
        self.assertEqual(script, open(os.path.join(work, "submitted-2")).read())
        self.assertIn("retries: 2", open(os.path.join(folder, "job.yaml")).read())


if __name__ == "__main__":
    unittest.main()
