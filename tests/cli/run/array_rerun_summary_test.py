"""An array element rerun after the elements were merged (issue 39): its summary says the merged
file exists (it held "... does not exist until the elements are merged" while the file was there);
before the merge it still says the file does not exist yet. The bucket's case (the master fetched
into the mirror) is tests/cloud/cloud_rerun_summary_test.py."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

JOB = """\
task: exec
sweep: {a: {range: [0, 6, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT}
"""
NOT_YET = "does not exist until the elements are merged"


def element(job, index, *extra, np=None):
    return run(["run", job, "--array-index", str(index), "--array-count", "2", *extra], np=np)


class ArrayRerunSummaryTest(unittest.TestCase):
    def check(self, np):
        work = scratch_dir(self)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.replace("OUT", out))
        first = element(job, 0, np=np)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertIn(f"{out} {NOT_YET}", first.stdout + first.stderr)
        second = element(job, 1, np=np)
        self.assertEqual(second.returncode, 0, second.stderr)
        merged = run(["merge", out])
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))

        rerun = element(job, 0, "--resume", np=np)
        said = rerun.stdout + rerun.stderr
        self.assertEqual(rerun.returncode, 0, said)
        self.assertNotIn(NOT_YET, said)
        self.assertIn(f"{out} holds the elements merged before this run", said)
        self.assertIn(f"to merge again, when all 2 elements have finished: shardrun merge {out}", said)

    def test_one_rank(self):
        self.check(None)

    def test_two_ranks(self):
        self.check(2)


if __name__ == "__main__":
    unittest.main()
