"""docs/tutorials/aws-batch-sweep.md as a reader follows it, with moto's S3 as `my-bucket`: the training
script, requirements.txt and job file; `shardrun submit --to aws-batch --workdir .` (which uploads the job
files and the folder to the bucket) with its quoted output. What the page's `bash` blocks do on AWS is
stood in for: no image is built; the 3 array elements and the merge job run here as AWS Batch would run
them (tests/cloud/element_runner.py: the generated JSON's command and environment plus AWS's variables,
a fresh HOME and TMPDIR each, Debian's python3 as the image's). Then the page's reading commands
(`status` and `table` of the s3:// URL, `aws s3 cp`, the xarray script), each quoted output checked; and
the master in the bucket has the 18 tasks ok once, with the results train.py computes."""
import json
import os
import unittest

import cloud_servers
import page_snippets
import tutorial_support
from element_runner import HostRunner
from harness import SOURCE_DIR
from jobs import h5py_module

TASKS = 18


class AwsBatchSweepTutorialTest(unittest.TestCase):
    def setUp(self):
        self.store = cloud_servers.S3(tutorial_support.scratch_dir(self), bucket="my-bucket")
        self.addCleanup(self.store.stop)

    def run_container(self, runner, name, container, extra):
        """One container of a generated job definition, as AWS Batch starts it; returns its stdout."""
        variables = {e["name"]: e["value"] for e in container["environment"]}
        # The image's PATH and packages: Debian's python3 (numpy, scipy), the checkout's `shardrun` package.
        variables.update(extra, PATH="/usr/bin:/bin", PYTHONPATH=os.path.join(SOURCE_DIR, "scripts", "python"),
                         **self.store.env())
        handle = runner.start(name, container["command"], variables)
        self.addCleanup(runner.stop, handle)
        code, out, err = runner.finish(handle, 600)
        self.assertEqual(code, 0, f"{name}:\n{out}{err}")
        return out

    def test_the_page_as_written(self):
        steps = tutorial_support.page("aws-batch-sweep")
        env = self.store.env()
        session = tutorial_support.reader(self, env)
        session.env.pop("AWS_CA_BUNDLE", None)  # rclone 1.60 fails with it (README, "Results in object storage")
        before_reading = [s for s in steps if not s.section.startswith("5.")]
        session.run(before_reading)

        submit = os.path.join(session.cwd, "lr-sweep.h5.submit", "aws-batch")
        with open(os.path.join(submit, "entrypoint")) as f:
            runner = HostRunner(self, f.read())
        with open(os.path.join(submit, "array-job.json")) as f:
            array = json.load(f)["containerProperties"]
        with open(os.path.join(submit, "merge-job.json")) as f:
            merge = json.load(f)["containerProperties"]
        with open(os.path.join(submit, "array-submit.json")) as f:
            self.assertEqual(json.load(f)["arrayProperties"]["size"], 3)
        self.assertEqual(array["jobRoleArn"], "arn:aws:iam::123456789012:role/shardrun-job")
        self.assertEqual(array["image"], "123456789012.dkr.ecr.us-east-1.amazonaws.com/lr-sweep:1")
        for index in range(3):
            out = self.run_container(runner, f"a{index}", array, {
                "AWS_BATCH_JOB_ID": f"5eed-1:{index}", "AWS_BATCH_JOB_ARRAY_INDEX": str(index),
                "AWS_BATCH_JOB_ARRAY_SIZE": "3", "AWS_BATCH_JOB_ATTEMPT": "1", "AWS_BATCH_JQ_NAME": "my-queue"})
            self.assertIn(f"array element {index} of 3 finished", out)
        out = self.run_container(runner, "merge", merge, {"AWS_BATCH_JOB_ID": "5eed-2", "AWS_BATCH_JOB_ATTEMPT": "1"})
        self.assertIn("merged 3 of 3 array element(s)", out)

        session.run(page_snippets.section(steps, "5."))
        h5py = h5py_module()
        with h5py.File(os.path.join(session.cwd, "lr-sweep.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS, "every training ok exactly once")
            self.assertEqual(f["results/loss"].shape, (TASKS, 50))
            accuracy = f["results/val_accuracy"][:]
        self.assertTrue(((accuracy > 0.5) & (accuracy <= 1.0)).all(), accuracy)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
