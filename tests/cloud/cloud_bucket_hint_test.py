"""The summary of a run whose output the bucket did not get whole points to the bucket's troubleshooting
section, not to `picture: shardrun report URL` as if the output were readable (issue 39's trials).
The run and bucket of cloud_outage_test.py (moto's S3 on loopback): an outage from mid-run to the end
(exit 3, NOT IN THE BUCKET), and a run whose element another run took (exit 2, ANOTHER WRITER)."""
import os
import signal
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloud_outage_test as outage  # noqa: E402  (its tests stay there: unittest runs this module's)
import cloud_servers  # noqa: E402

ANCHOR = "(see docs/troubleshooting.md#bucket-errors)"


class BucketHintTest(unittest.TestCase):
    # The outage test's job, bucket and runs, without its tests.
    setUp = outage.OutageTest.setUp
    pause = outage.OutageTest.pause
    env = outage.OutageTest.env
    start = outage.OutageTest.start
    segments = outage.OutageTest.segments
    wait_for_a_segment = outage.OutageTest.wait_for_a_segment

    def check_hint(self, run, note):
        self.assertIn(note, run.out)
        self.assertIn(ANCHOR, run.out)
        self.assertNotIn("picture:", run.out, "the bucket's output is not readable as results")
        self.assertNotIn("  results: ", run.out)

    def test_an_outage_until_the_end_points_to_the_bucket_section(self):
        run = self.start(self.env(SHARDRUN_UPLOAD_PATIENCE="10"))
        self.wait_for_a_segment(run)
        server = self.store.server.proc.pid
        os.killpg(server, signal.SIGSTOP)  # accepts connections, never answers
        self.addCleanup(os.killpg, server, signal.SIGCONT)
        self.assertEqual(run.wait(), 3, run.out + run.err)
        self.check_hint(run, "NOT IN THE BUCKET:")
        self.assertIn("--resume", run.out.split("NOT IN THE BUCKET:", 1)[1])

    def test_a_run_whose_element_another_took_says_it_is_the_other_runs(self):
        run = self.start(self.env())
        self.wait_for_a_segment(run)
        claim = os.path.join(self.work, "claim.json")
        with open(claim, "w") as f:
            f.write('{"run": "node-b:42:0badcafe", "host": "node-b", "started": "2026-11-28 22:00:00 UTC", '
                    '"beat": 1, "released": false}\n')  # what a second writer that started meanwhile leaves
        self.store.aws("s3", "cp", claim, f"s3://{self.store.bucket}/{self.prefix}.shards/a0/writer.lock")
        self.assertEqual(run.wait(), 2, run.out + run.err)
        self.check_hint(run, "ANOTHER WRITER:")
        self.assertIn("written by the other run now", run.out)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)
