"""A dead endpoint (issue 39): `plan` of a job whose data.input is in a bucket, and `status` and
`run` of an output there say the failure alike: rclone's cause, the endpoint variable that names where it
went, and the docs pointer (docs/troubleshooting.md#bucket-errors); plan's line starts with the
job file's place of data.input. No server: a port nothing listens on (a free one, closed again)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

POINTER = "(see docs/troubleshooting.md#bucket-errors)"


class DeadEndpointTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.endpoint = f"http://127.0.0.1:{cloud_servers.free_port()}"
        self.env = {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                    "AWS_REGION": "us-east-1", "SHARDRUN_SCRATCH": scratch_dir(self)}

    def one_line(self, proc):
        self.assertNotEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        line = lines[0]
        self.assertIn("connection refused", line)
        self.assertIn(f"check the credentials, the endpoint (AWS_ENDPOINT_URL={self.endpoint}) and that the bucket "
                      "exists", line)
        self.assertTrue(line.endswith(POINTER), line)
        return line

    def test_plan_and_status_say_it_alike(self):
        job = write_job(self.work, """\
            task: exec
            data: {input: "s3://bucket/in/data.h5:/x", chunk: 5}
            exec:
              argv: [sh, -c, 'echo "{{\\"n\\": 1}}" > $SHARDRUN_RESULT']
              results: {n: int64}
            output: {path: out.h5}
            """)
        plan = self.one_line(run(["plan", job], env=self.env))
        self.assertIn(f"{job}:", plan)
        self.assertIn("data.input", plan)
        self.assertIn("cannot read s3://bucket/in/data.h5: rclone exited", plan)
        proc = run(["status", "s3://bucket/out.h5"], env=self.env)
        # Its own code: a script must not take "could not look" for "complete, with failed tasks" (1).
        self.assertEqual(proc.returncode, 5, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout, "", "nothing is known of the tasks")
        self.assertIn("rclone exited", self.one_line(proc))

    def test_run_says_it_as_status_does(self):
        # Issue 39's trial: run's line had rclone's cause but not where to look.
        job = write_job(self.work, """\
            task: exec
            sweep: {a: [1, 2]}
            exec:
              argv: [sh, -c, 'echo "{{\\"n\\": 1}}" > $SHARDRUN_RESULT']
              results: {n: int64}
            output: {path: "s3://bucket/out.h5"}
            """)
        proc = run(["run", job, "-q"], env=self.env)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("rclone exited", self.one_line(proc))

    def test_run_of_a_bucket_input_says_it_as_plan_does(self):
        # Trial 41a: run staged the JSONL input and lost the pointer on the way to data.input's place.
        job = write_job(self.work, """\
            task: exec
            data: {input: "s3://bucket/in/data.jsonl", chunk: 5}
            exec:
              argv: [sh, -c, 'echo "{{\\"n\\": 1}}" > $SHARDRUN_RESULT']
              results: {n: int64}
            output: {path: out.h5}
            """)
        proc = run(["run", job, "-q"], env=self.env)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        line = self.one_line(proc)
        self.assertIn(f"{job}:2:15: data.input: cannot download s3://bucket/in/data.jsonl", line)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)
