"""Results stored once (issue 11, point 6): after a complete shards run at 2 ranks the segments
are gone and the master alone serves `--resume`, `status`, `table` and `merge`; a kill -9 in
the middle of removing them (SHARDRUN_TEST_KILL_DROP_AFTER) leaves a complete master that
`status` and `--resume` handle; a resume that reruns a failed task rebuilds the master from
the old master plus its new segments; an array job's elements are dropped after a complete merge."""
import json
import os
import unittest

from harness import run, scratch_dir, sha256_of, status_json, stored_result_files
from jobs import h5py_module, write_job

TASKS = 12
# Every task sleeps, so each rank commits more than one segment (a commit per second).
JOB = r"""
name: once
task: exec
sweep: {a: {range: [0, 12, 1]}}
exec:
  argv: [sh, -c, 'sleep 0.3; [ -e OUT/fixed ] || [ $SHARDRUN_PARAM_A -ne 3 ] || exit 5; echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/once.h5}
"""


class StoredOnceTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.job = write_job(self.work, JOB.replace("OUT", self.work))
        self.out = os.path.join(self.work, "once.h5")

    def fix_task_3(self):
        open(os.path.join(self.work, "fixed"), "w").close()

    def result_files(self):
        return stored_result_files(self.out)

    def manifest(self, index=0):
        with open(os.path.join(self.out + ".shards", f"a{index}", "element.json")) as f:
            return json.load(f)

    def check_master(self, failed=()):
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            status = list(f["tasks/status"][:])
            values = list(f["results/v"][:])
        for a in range(TASKS):
            if a in failed:
                self.assertEqual(status[a], 2, a)
            else:
                self.assertEqual((status[a], values[a]), (1, float(a)), a)

    def status(self):
        code, report = status_json(self.out)
        self.assertIsNotNone(report, code)
        return code, report

    def test_a_complete_run_keeps_its_results_once_and_every_command_works_from_the_master(self):
        self.fix_task_3()
        first = run(["run", self.job, "-q"], np=2)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)

        self.check_master()
        self.assertEqual(self.result_files(), [])
        self.assertTrue(self.manifest()["consolidated"])
        code, status = self.status()
        self.assertEqual(code, 0, status)
        self.assertEqual((status["ok"], status["pending"], status["complete"]), (TASKS, 0, True))
        self.assertEqual(sum(rank["ok"] for rank in status["ranks"]), TASKS)
        table = run(["table", self.out])
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertEqual(len([line for line in table.stdout.splitlines() if line.split()[-1:] == ["ok"]]), TASKS)
        before = sha256_of(self.out)
        merged = run(["merge", self.out])
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.assertIn(f"{TASKS} ok, 0 failed", merged.stdout)
        self.assertEqual(sha256_of(self.out), before, "merge rewrote a complete master")
        resumed = run(["run", self.job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.assertEqual(sha256_of(self.out), before, "--resume of a complete job changed the master")
        self.assertEqual(self.result_files(), [])

    def test_a_resume_after_consolidation_reruns_failed_tasks_and_keeps_the_rest(self):
        first = run(["run", self.job, "-q"], np=2)
        self.assertEqual(first.returncode, 1, first.stdout + first.stderr)  # task 3 failed
        self.check_master(failed=(3,))
        self.assertEqual(self.result_files(), [], "a complete run (failures are final) keeps its shards")
        self.fix_task_3()

        resumed = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.check_master()
        self.assertEqual(self.result_files(), [])
        code, status = self.status()
        self.assertEqual((code, status["ok"], status["failed"]), (0, TASKS, 0))

    def kill_during_cleanup(self, after):
        self.fix_task_3()
        killed = run(["run", self.job, "-q"], np=2, env={"SHARDRUN_TEST_KILL_DROP_AFTER": str(after)})
        self.assertNotEqual(killed.returncode, 0, killed.stdout + killed.stderr)
        # The master was published before anything was removed: complete, and it is.
        self.check_master()
        self.assertTrue(self.manifest()["consolidated"])
        left = self.result_files()
        self.assertTrue(any(name.endswith(".h5") and "/r" in name for name in left), left)

        code, status = self.status()
        self.assertEqual(code, 0, status)
        self.assertEqual((status["ok"], status["pending"], status["complete"]), (TASKS, 0, True))
        resumed = run(["run", self.job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.assertNotIn("warning", resumed.stderr)
        self.check_master()
        self.assertEqual(self.result_files(), [])
        code, status = self.status()
        self.assertEqual((code, status["ok"], status["complete"]), (0, TASKS, True))

    def test_kill_after_the_manifest_before_any_file_is_removed(self):
        self.kill_during_cleanup(0)

    def test_kill_with_the_segments_half_removed(self):
        self.kill_during_cleanup(1)

    def test_an_array_job_drops_its_elements_once_the_merged_master_is_complete(self):
        self.fix_task_3()
        for index in (0, 1):
            proc = run(["run", self.job, "-q", "--array-index", str(index), "--array-count", "2"], np=2)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotEqual(self.result_files(), [], "an element alone is not redundant before the merge")

        merged = run(["merge", self.out])

        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.check_master()
        self.assertEqual(self.result_files(), [])
        self.assertTrue(self.manifest(0)["consolidated"] and self.manifest(1)["consolidated"])
        code, status = self.status()
        self.assertEqual((code, status["ok"], status["complete"]), (0, TASKS, True))
        before = sha256_of(self.out)
        again = run(["merge", self.out])
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual(sha256_of(self.out), before)
        resumed = run(["run", self.job, "-q", "--resume", "--array-index", "1", "--array-count", "2"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.assertEqual(self.result_files(), [])


if __name__ == "__main__":
    unittest.main()
