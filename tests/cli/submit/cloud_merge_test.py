"""The merge on the cloud, run here with the job files' own commands on a shared folder (the
bucket version is tests/cloud/): AWS Batch's merge job (merge-job.json) after the array's
elements, MERGE INCOMPLETE naming a missing element, a final element's failure reported as 0 so
the dependent merge job runs; Google Cloud Batch's last task merging (no job dependencies)."""
import json
import os
import subprocess
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()
TASKS = 9

# y = x * x; the task whose x is $FAIL_X fails.
JOB = r'''
name: squares
task: exec
sweep:
  x: {range: [0, 9, 1]}
output: {path: out/squares.h5}
exec:
  argv: [sh, -c, '[ "{x}" != "${{FAIL_X:-}}" ] || exit 1; printf "{{\"y\": %d}}" $(( {x} * {x} )) > "$SHARDRUN_RESULT"']
  results: {y: float64}
'''


def mpi_env(extra):
    return clean_env({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                      "OMPI_MCA_rmaps_base_oversubscribe": "1", "SHARDRUN_MPIRUN": MPIEXEC, **extra})


class Submitted:
    def __init__(self, test, target, count):
        self.work = scratch_dir()
        write_job(self.work, JOB)
        proc = run(["submit", os.path.join(self.work, "job.yaml"), "--to", target, "--array", str(count),
                    "--ranks-per-node", "2", "--shardrun", SHARDRUN, "--set", "retries=0", "--shared-fs", self.work],
                   cwd=self.work)
        test.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.dir = os.path.join(self.work, "out", "squares.h5.submit", target)
        self.output = os.path.join(self.work, "out", "squares.h5")

    def json(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return json.load(f)

    def check_master(self, test, failed=()):
        with h5py.File(self.output, "r") as f:
            test.assertTrue(bool(f.attrs["complete"]))
            status = f["tasks/status"][:].tolist()
            y = f["results/y"][:].tolist()
        test.assertEqual(len(status), TASKS)
        for x in range(TASKS):
            if x in failed:
                test.assertNotEqual(status[x], 1)
            else:
                test.assertEqual((status[x], y[x]), (1, float(x * x)))


def start(command, env):
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd="/", timeout=300)


class AwsMergeJobTest(unittest.TestCase):
    def element(self, s, index, attempt=1, extra=None):
        container = s.json("array-job.json")["containerProperties"]
        env = mpi_env({**{e["name"]: e["value"] for e in container["environment"]},
                       "AWS_BATCH_JOB_ID": "f00d:%d" % index, "AWS_BATCH_JOB_ARRAY_INDEX": str(index),
                       "AWS_BATCH_JOB_ARRAY_SIZE": "3", "AWS_BATCH_JOB_ATTEMPT": str(attempt), **(extra or {})})
        return start(container["command"], env)

    def merge_job(self, s):
        container = s.json("merge-job.json")["containerProperties"]
        return start(container["command"], mpi_env({e["name"]: e["value"] for e in container["environment"]}))

    def test_merge_job_names_the_missing_element_then_merges(self):
        s = Submitted(self, "aws-batch", 3)
        for index in (0, 1):
            element = self.element(s, index)
            self.assertEqual(element.returncode, 0, element.stdout + element.stderr)
        merge = self.merge_job(s)
        self.assertEqual(merge.returncode, 1, merge.stdout + merge.stderr)
        self.assertIn("MERGE INCOMPLETE", merge.stderr)
        self.assertIn("array elements never started: 2", merge.stderr)
        element = self.element(s, 2)
        self.assertEqual(element.returncode, 0, element.stdout + element.stderr)
        merge = self.merge_job(s)
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        s.check_master(self)

    def test_a_final_failure_exits_0_so_the_merge_job_runs(self):
        # AWS Batch fails a job whose dependency failed without starting it: the element that ends
        # with failed tasks exits 0 (its log says 1), and the merge job carries the verdict.
        s = Submitted(self, "aws-batch", 3)
        for index in (0, 1, 2):
            element = self.element(s, index, extra={"FAIL_X": "4"})
            self.assertEqual(element.returncode, 0, element.stdout + element.stderr)
            if index == 1:
                self.assertIn("array element 1 ended with exit 1", element.stderr)
        merge = self.merge_job(s)
        self.assertEqual(merge.returncode, 1, merge.stdout + merge.stderr)
        self.assertIn("1 failed", merge.stdout)
        s.check_master(self, failed=(4,))


class GcpLastTaskMergesTest(unittest.TestCase):
    def task(self, s, index, retry=0):
        spec = s.json("job.json")["taskGroups"][0]["taskSpec"]
        container = spec["runnables"][0]["container"]
        env = mpi_env({**spec["environment"]["variables"], "BATCH_TASK_INDEX": str(index), "BATCH_TASK_COUNT": "2",
                       "BATCH_TASK_RETRY_ATTEMPT": str(retry), "SHARDRUN_MERGE_SETTLE": "1"})
        return start([container["entrypoint"], *container["commands"]], env)

    def test_the_last_task_to_finish_merges(self):
        s = Submitted(self, "gcp-batch", 2)
        self.assertEqual(s.json("job.json")["taskGroups"][0]["taskSpec"]["environment"]["variables"]["SHARDRUN_MERGE"],
                         "last-task")
        first = self.task(s, 1)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        self.assertIn("1 of 2 are; the last to finish merges", first.stderr)
        self.assertFalse(os.path.exists(s.output))
        last = self.task(s, 0)
        self.assertEqual(last.returncode, 0, last.stdout + last.stderr)
        self.assertIn("merging the 2 array elements", last.stderr)
        s.check_master(self)
        self.assertFalse(os.path.exists(os.path.join(s.dir, "final")), "the markers go once merged")


if __name__ == "__main__":
    unittest.main(verbosity=2)
