"""Issue 37, point 4 with a URL output: `shardrun run s3://bucket/out.h5 --task 7` reads the job the
output in the bucket records and runs task 7 of it on this machine, into a local scratch output,
never writing into the bucket; it prints the task's stdout and the same result as task 7's row of
the real run (read back from the bucket's master with h5py). `run URL` without --task and a URL
where no output is are one-line errors (exit 2) that leave nothing behind. Against moto's S3."""
import json
import os
import re
import shutil
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import h5py_module, write_job  # noqa: E402

TASKS = 10
PROGRAM = r"""
import json, os
a = int(os.environ["SHARDRUN_PARAM_A"])
print(f"hello from task {os.environ['SHARDRUN_TASK_ID']} of {os.environ['SHARDRUN_TASK_COUNT']}")
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"v": a * 1.5 + 0.1, "curve": [a, a * a], "odd": a % 2 == 1}, f)
"""


class TaskByHandFromTheBucket(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.S3(self.work)
        self.addCleanup(self.store.stop)
        self.prefix = "runs/hand/sweep.h5"
        self.url = self.store.url(self.prefix)
        self.program = os.path.join(self.work, "task.py")
        with open(self.program, "w") as f:
            f.write(PROGRAM)
        # The job's output is the bucket: a run by hand must take it from the job the bucket records.
        self.job = write_job(self.work, f"""\
            name: sweep
            task: exec
            sweep: {{a: {{range: [0, {TASKS}, 1]}}}}
            output: {{path: {self.url}}}
            exec:
              argv: [/usr/bin/python3, task.py]
              results: {{v: float64, curve: [int64, 2], odd: bool}}
            """)

    def env(self):
        return {**self.store.env(), "SHARDRUN_SCRATCH": scratch_dir(self), "TMPDIR": scratch_dir(self)}

    def master_row(self, t):
        path = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, path)
        with h5py_module().File(path, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS)
            return {"v": float(f["results/v"][t]), "curve": f["results/curve"][t].tolist(),
                    "odd": bool(f["results/odd"][t])}

    def test_task_7_of_the_job_recorded_in_the_bucket(self):
        full = run(["run", self.job, "-q"], np=2, env=self.env())
        self.assertEqual(full.returncode, 0, full.stdout + full.stderr)
        expected = self.master_row(7)
        before = sorted(self.store.keys(self.prefix))
        # The job file is gone: only the bucket knows the job (its relative argv resolves in the
        # recorded job file's folder, which is still here).
        os.rename(self.job, self.job + ".moved")

        env = self.env()
        by_hand = run(["run", self.url, "--task", "7"], env=env)

        self.assertEqual(by_hand.returncode, 0, by_hand.stdout + by_hand.stderr)
        lines = by_hand.stdout.splitlines()
        self.assertEqual(lines[0], f"hello from task 7 of {TASKS}")
        printed = json.loads(lines[-1])
        self.assertEqual((printed["task_id"], printed["status"]), (7, "ok"))
        self.assertEqual(printed["results"], expected)
        scratch = re.search(r"output (\S+) ", by_hand.stderr).group(1)
        self.assertTrue(scratch.startswith(env["TMPDIR"]), scratch)
        self.addCleanup(shutil.rmtree, os.path.dirname(scratch), ignore_errors=True)
        # Each task run by hand is an array element of its own: merge joins them (not complete: one task of 10).
        self.assertNotEqual(run(["merge", scratch], env=env).returncode, 0)
        with h5py_module().File(scratch, "r") as f:
            self.assertEqual(f["tasks/status"][7], 1)
            got = {"v": float(f["results/v"][7]), "curve": f["results/curve"][7].tolist(), "odd": bool(f["results/odd"][7])}
        self.assertEqual(got, expected)
        self.assertEqual(sorted(self.store.keys(self.prefix)), before, "run --task wrote into the bucket")

    def test_refusals_are_one_line_and_leave_nothing(self):
        env = self.env()
        for args, needle in ((["run", self.url], "runs a task of the job recorded there"),
                             (["run", self.url, "--task", "1"], "no shardrun output records a job there")):
            proc = run(args, env=env)
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn(needle, lines[0])
        self.assertEqual(os.listdir(env["TMPDIR"]), [], "a refused run left files in TMPDIR")
        self.assertEqual(self.store.keys("runs/"), [], "a refused run wrote into the bucket")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main()
