"""`shardrun status` of a finished run whose results file was damaged afterwards: it says the
file cannot be opened and that the output is NOT complete. The file was the only copy of the
results (the shards went once it was complete), so `shardrun merge` refuses to overwrite it
with a master of pending tasks and leaves it as it is."""
import os
import unittest

from harness import run, scratch_dir
from jobs import write_job

JOB = r"""
name: status-master
task: exec
sweep: {a: {range: [0, 6, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/out.h5}
"""


class StatusMasterTest(unittest.TestCase):
    def test_a_torn_master_is_reported_and_merge_leaves_it(self):
        work = scratch_dir()
        out = os.path.join(work, "out.h5")
        self.assertEqual(run(["run", write_job(work, JOB.replace("OUT", work)), "-q"]).returncode, 0)
        os.truncate(out, 1000)

        status = run(["status", out])

        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)  # not complete, no run: merge rebuilds it
        self.assertIn("NOT complete", status.stdout)
        self.assertIn("the results file cannot be opened", status.stdout)
        self.assertIn("truncated file", status.stdout)
        self.assertNotIn("H5Fopen", status.stdout)
        merged = run(["merge", out])
        self.assertEqual(merged.returncode, 2, merged.stdout + merged.stderr)
        self.assertIn(f"{out} cannot be read (truncated file", merged.stderr)
        self.assertIn("only copy of the results", merged.stderr)
        self.assertEqual(os.path.getsize(out), 1000)


if __name__ == "__main__":
    unittest.main()
