"""`shardrun run` of exec sweeps under mpiexec: every task exactly once, environment, argv, results."""
import glob
import json
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, run, scratch_dir
from jobs import h5py_module, write_job

# Each task records itself as marks/<task_id>.<pid>, dumps its environment and argv to stdout,
# and writes its declared results.
RECORDER = r'''
name: recorder
task: exec
params: {scale: 3}
sweep:
  alpha: {linspace: [0.0, 1.0, 5]}
  label: [a, b, c, d]
data: {items: 100, chunk: 10}
schedule: SCHEDULE
output: {path: OUT/rec.h5}
exec:
  argv: [sh, -c, 'touch MARKS/{task_id}.$$; env | grep ^SHARDRUN_ | sort; echo "argv: $0 $1"; printf "{{\"x\": %s, \"pair\": [%s, %s]}}" {task_id} $SHARDRUN_RANGE_START $SHARDRUN_RANGE_END > $SHARDRUN_RESULT', '{label}-{alpha}', 'scaled={scale}']
  results: {x: float64, pair: [int64, 2]}
'''


class ExecSweepTest(unittest.TestCase):
    def run_recorder(self, schedule, np, extra=()):
        work = scratch_dir()
        marks = os.path.join(work, "marks")
        os.makedirs(marks)
        text = RECORDER.replace("SCHEDULE", schedule).replace("OUT", work).replace("MARKS", marks)
        job = write_job(work, text)
        proc = run(["run", job, "--progress", "plain", *extra], np=np)
        return work, marks, proc

    def check_exactly_once(self, schedule, np, extra=()):
        work, marks, proc = self.run_recorder(schedule, np, extra)
        self.assertEqual(proc.returncode, 0, proc.stderr + proc.stdout)
        ids = sorted(int(os.path.basename(p).split(".")[0]) for p in glob.glob(marks + "/*"))
        self.assertEqual(ids, list(range(200)), f"{schedule}: tasks not run exactly once")
        h5py = h5py_module()
        with h5py.File(os.path.join(work, "rec.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["results/x"][:].tolist(), [float(i) for i in range(200)])
            self.assertEqual(f["results/pair"].shape, (200, 2))
            self.assertEqual(f["results/pair"][13].tolist(), [30, 40])  # chunk 3 of point 1
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 200)
        return work

    def test_static_two_ranks(self):
        self.check_exactly_once("static", 2)

    def test_cyclic_two_ranks(self):
        self.check_exactly_once("cyclic", 2)

    def test_dynamic_two_ranks(self):
        self.check_exactly_once("dynamic", 2)

    def test_dynamic_four_ranks_two_slots(self):
        self.check_exactly_once("dynamic", 4, ["--set", "slots_per_rank=2"])

    def test_environment_and_argv_of_a_task(self):
        work = self.check_exactly_once("static", 2)
        # task 57 = point 5 (alpha index 1 -> 0.25, label index 1 -> b), chunk 7 -> [70, 80)
        with open(os.path.join(work, "rec.h5.tasks", "57", "stdout")) as f:
            out = f.read()
        for line in ["SHARDRUN_TASK_ID=57", "SHARDRUN_TASK_COUNT=200", "SHARDRUN_PARAM_ALPHA=0.25",
                     "SHARDRUN_PARAM_LABEL=b", "SHARDRUN_PARAM_SCALE=3", "SHARDRUN_RANGE_START=70",
                     "SHARDRUN_RANGE_END=80", "argv: b-0.25 scaled=3"]:
            self.assertIn(line, out)
        self.assertIn("SHARDRUN_TASK_DIR=" + os.path.join(work, "rec.h5.tasks", "57") + "\n", out)
        # Results go to the running slot's scratch folder under <output>.tasks (no folder per
        # task); the task folder holds only what was kept, here its stdout.
        result = [line.split("=", 1)[1] for line in out.splitlines() if line.startswith("SHARDRUN_RESULT=")]
        self.assertEqual(len(result), 1, out)
        self.assertTrue(os.path.isabs(result[0]), result)
        self.assertEqual(os.path.dirname(os.path.dirname(result[0])), os.path.join(work, "rec.h5.tasks"))
        self.assertEqual(os.path.basename(result[0]), "result.json")
        self.assertIn("SHARDRUN_RESULT_DIR=" + os.path.dirname(result[0]) + "\n", out)
        # Attempt 1's own file, and the plain name linked to it (issue 23).
        self.assertEqual(sorted(os.listdir(os.path.join(work, "rec.h5.tasks", "57"))), ["stdout", "stdout.1"])
        # The slots' scratch files and folders go with the ranks that made them.
        self.assertEqual([n for n in os.listdir(os.path.join(work, "rec.h5.tasks")) if n.startswith(".scratch-")], [])


class TaskFailureTest(unittest.TestCase):
    def run_job(self, argv, results="{v: float64}", extra_keys="", np=None, extra=()):
        work = scratch_dir()
        argv = json.dumps(argv)
        job = write_job(work, f"""
            name: failing
            task: exec
            sweep: {{i: {{range: [0, 6, 1]}}}}
            output: {{path: {work}/f.h5}}
            {extra_keys}
            exec:
              argv: {argv}
              results: {results}
            """)
        proc = run(["run", job, "-q", *extra], np=np)
        return work, proc

    def tasks(self, work):
        h5py = h5py_module()
        with h5py.File(os.path.join(work, "f.h5"), "r") as f:
            return (f["tasks/status"][:].tolist(), f["tasks/exit_code"][:].tolist(), f["tasks/attempts"][:].tolist(),
                    f["results/v"][:].tolist())

    def test_bad_result_files_fail_only_their_tasks(self):
        script = ("case {i} in 0) echo '{{\"w\": 1}}';; 1) echo '{{\"v\": [1, 2]}}';; 2) echo 'not json';; "
                  "*) echo '{{\"v\": {i}}}';; esac > $SHARDRUN_RESULT")
        work, proc = self.run_job(["sh", "-c", script], np=2)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        status, _, _, values = self.tasks(work)
        self.assertEqual(status, [2, 2, 2, 1, 1, 1])
        self.assertEqual(values[3:], [3.0, 4.0, 5.0])
        # A failed task's result file is kept in its folder to look at; a read one is not kept.
        tasks = os.path.join(work, "f.h5.tasks")
        for i, text in enumerate(['{"w": 1}', '{"v": [1, 2]}', "not json"]):
            with open(os.path.join(tasks, str(i), "result.json")) as f:
                self.assertEqual(f.read().strip(), text)
        for i in range(3, 6):
            self.assertFalse(os.path.exists(os.path.join(tasks, str(i))), f"task {i} wrote nothing to keep")

    def test_command_not_found_is_exit_127(self):
        # Every task's own code is the point here, not the default fail_fast (failure_budget_test).
        work, proc = self.run_job(["/no/such/program", "{i}"], extra_keys="fail_fast: false")
        self.assertEqual(proc.returncode, 1)
        status, codes, _, _ = self.tasks(work)
        self.assertEqual(status, [2] * 6)
        self.assertEqual(codes, [127] * 6)

    def test_retries_record_attempts(self):
        # Fails on the first attempt of even tasks, succeeds on the second.
        script = ("if [ {attempt} = 1 ] && [ $(({i} % 2)) = 0 ]; then exit 3; fi; "
                  "echo '{{\"v\": {attempt}}}' > $SHARDRUN_RESULT")
        work, proc = self.run_job(["sh", "-c", script], extra_keys="retries: 2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        status, _, attempts, values = self.tasks(work)
        self.assertEqual(status, [1] * 6)
        self.assertEqual(attempts, [2, 1, 2, 1, 2, 1])
        self.assertEqual(values, [2.0, 1.0, 2.0, 1.0, 2.0, 1.0])

    def test_timeout_kills_the_task(self):
        work, proc = self.run_job(["sh", "-c", "sleep 30"], extra_keys="timeout: 0.3s\n            timeout_grace: 0.2s\n            fail_fast: false")
        self.assertEqual(proc.returncode, 1)
        status, codes, _, _ = self.tasks(work)
        self.assertEqual(codes, [124] * 6)


class NoResultsTest(unittest.TestCase):
    def test_exec_without_declared_results(self):
        work = scratch_dir()
        job = write_job(work, f"""
            task: exec
            sweep: {{i: {{range: [0, 5, 1]}}}}
            output: {{path: {work}/plain.h5}}
            exec: {{argv: [/bin/true, "{{i}}"]}}
            """)
        proc = run(["run", job, "-q"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        h5py = h5py_module()
        with h5py.File(os.path.join(work, "plain.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 5)
            # No result field: /results holds only its task coordinate (README "Results").
            self.assertEqual(list(f["results"]), ["task"])
            self.assertEqual(f["results/task"][:].tolist(), list(range(5)))


class InterruptTest(unittest.TestCase):
    def test_sigterm_exits_3_and_resume_finishes(self):
        work = scratch_dir()
        argv = json.dumps(["sh", "-c", "sleep 0.3; echo '{{\"v\": {i}}}' > $SHARDRUN_RESULT"])
        job = write_job(work, f"""
            name: slow
            task: exec
            sweep: {{i: {{range: [0, 8, 1]}}}}
            schedule: static
            output: {{path: {work}/s.h5}}
            exec:
              argv: {argv}
              results: {{v: float64}}
              keep_files: true    # the finished tasks' result.json files tell the test when to interrupt
            """)
        proc = subprocess.Popen([SHARDRUN, "run", job, "-q"], env=clean_env(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        # Interrupt once two tasks have finished (not after a fixed time: the machine may be busy).
        deadline = time.time() + 60
        while len(glob.glob(f"{work}/s.h5.tasks/*/result.json")) < 2 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 3, err)
        resumed = run(["run", job, "--resume"])
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertRegex(resumed.stdout, r"[1-7] already done of 8 tasks")
        self.assertNotIn("skipped", resumed.stdout)
        h5py = h5py_module()
        with h5py.File(os.path.join(work, "s.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["results/v"][:].tolist(), [float(i) for i in range(8)])


class ProgressTest(unittest.TestCase):
    def test_json_progress_lines_end_with_a_summary(self):
        work = scratch_dir()
        job = write_job(work, f"""
            task: noop
            sweep: {{i: {{range: [0, 1000, 1]}}}}
            output: {{path: {work}/n.h5}}
            """)
        proc = run(["run", job, "--progress=json", "--progress-interval", "0.01"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        self.assertEqual(events[-1]["event"], "summary")
        self.assertEqual(events[-1]["ok"], 1000)
        # The last progress line says all done; the end phases (end_phase events) come after it.
        progress = [e for e in events if "done" in e]
        self.assertEqual(progress[-1]["done"], 1000)
        self.assertEqual(events.index(progress[-1]) + 1, events.index(next(e for e in events if e.get("event") == "end_phase")))
        self.assertEqual(len(events[-1]["ranks"]), 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
