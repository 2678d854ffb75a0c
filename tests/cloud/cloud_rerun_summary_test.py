"""A finished element of a cloud array rerun once the elements are merged in the bucket (issue 39):
its summary says the merged s3:// (gs://) file exists, not that it "does not exist until the
elements are merged". Each run in a fresh scratch folder: it knows only what the bucket holds.
CLOUD_BACKEND=s3|gcs picks one; unset runs both."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

JOB = """\
name: rerun
task: exec
sweep: {a: {range: [0, 6, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
"""
NOT_YET = "does not exist until the elements are merged"


class RerunSummaryBase:
    backend = None

    def setUp(self):
        self.work = scratch_dir(self)
        self.store = (cloud_servers.S3 if self.backend == "s3" else cloud_servers.GCS)(self.work)
        self.addCleanup(self.store.stop)
        self.job = write_job(self.work, JOB)
        self.prefix = "runs/rerun.h5"
        self.url = self.store.url(self.prefix)

    def env(self):
        return {**self.store.env(), "SHARDRUN_SCRATCH": scratch_dir(self)}

    def element(self, index, *extra):
        proc = run(["run", self.job, "--set", f"output.path={self.url}", "--array-index", str(index),
                    "--array-count", "2", *extra], env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return proc.stdout + proc.stderr

    def test_rerun_of_a_merged_element_says_the_file_exists(self):
        self.assertIn(f"{self.url} {NOT_YET}", self.element(0))
        self.element(1)
        merged = run(["merge", self.url], env=self.env())
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.assertIn(self.prefix, self.store.keys(self.prefix), "merge published the master")
        said = self.element(0, "--resume")
        self.assertNotIn(NOT_YET, said)
        self.assertIn(f"{self.url} holds the elements merged before this run", said)


class S3RerunSummaryTest(RerunSummaryBase, unittest.TestCase):
    backend = "s3"


class GcsRerunSummaryTest(RerunSummaryBase, unittest.TestCase):
    backend = "gcs"


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcsRerunSummaryTest
    elif backend == "gcs":
        del S3RerunSummaryTest
    unittest.main(verbosity=2)
