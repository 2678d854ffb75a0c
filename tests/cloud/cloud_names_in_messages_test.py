"""A command on an s3:// output works in a private local copy (status, merge, table, ...); a line it
ends with names the bucket's URL, never that copy (issue 39's trial 41a: `merge s3://...` named
/tmp/shardrun-copy-XXXXXX/mc.h5, a folder the user cannot look in and which is gone by then).
Here the master of a finished run is deleted from the bucket: status, table and merge each refuse
with one line naming the URL. Against moto's S3 server on loopback."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

JOB = """
name: named
task: exec
sweep: {a: {range: [0, 4, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\\"v\\": {a}}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: "URL"}
"""


class NamesInMessagesTest(unittest.TestCase):
    def test_lines_about_a_bucket_output_name_its_url(self):
        work = scratch_dir(self)
        store = cloud_servers.S3(work)
        self.addCleanup(store.stop)
        url = store.url("runs/named.h5")
        env = {**store.env(), "SHARDRUN_SCRATCH": scratch_dir(self)}
        finished = run(["run", write_job(work, JOB.replace("URL", url)), "-q"], env=env)
        self.assertEqual(finished.returncode, 0, finished.stdout + finished.stderr)
        store.aws("s3", "rm", url)

        for command in ("status", "table", "merge"):
            proc = run([command, url], env=env)
            self.assertEqual(proc.returncode, 2, f"{command}: {proc.stdout}{proc.stderr}")
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            self.assertEqual(len(lines), 1, f"{command}: {proc.stderr}")
            self.assertIn(f"{url} is missing, and it is the only copy of the results", lines[0])
            self.assertNotIn("shardrun-copy-", lines[0])


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)
