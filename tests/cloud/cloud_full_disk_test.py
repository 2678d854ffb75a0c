"""A full scratch disk under a run whose output is in a bucket (issue 39's trial): the run's mirror
lives in SHARDRUN_SCRATCH, which fills up (a 256 KiB tmpfs mounted by the test; needs root). The run
ends with exit 1 and the disk-full line, and the element's writer claim in the bucket keeps that
line as a local output's lock file does, so `shardrun status s3://...` from another machine (another
scratch folder) and the next run's --resume banner say the disk was full instead of guessing at a
killed rank. Against moto's S3 server on loopback; unmounted and stopped in every exit path."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "faults"))
import cloud_servers  # noqa: E402
from full_disk_status_test import KILL_GUESS, assert_says_the_disk_was_full  # noqa: E402
from full_disk_test import JOB  # noqa: E402  (200 tasks whose results are three times the disk)
from harness import run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

class CloudFullDiskTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.S3(self.work)
        self.addCleanup(self.store.stop)
        self.scratch = os.path.join(self.work, "scratch")
        os.mkdir(self.scratch)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", self.scratch], check=True)
        # Registered at once (after the server's stop: cleanups run last first, so the disk goes first).
        self.addCleanup(lambda: subprocess.run(["umount", self.scratch], check=False)
                        if os.path.ismount(self.scratch) else None)
        self.addCleanup(cloud_servers.kill_processes_with_env, f"SHARDRUN_SCRATCH={self.scratch}")
        self.url = self.store.url("runs/full.h5")
        self.job = write_job(self.work, JOB.replace("DISK/out.h5", f'"{self.url}"'))

    def env(self, scratch):
        return {**self.store.env(), "SHARDRUN_SCRATCH": scratch}

    def test_status_and_resume_say_the_scratch_disk_was_full(self):
        first = run(["run", self.job, "-q"], env=self.env(self.scratch))

        self.assertEqual(first.returncode, 1, first.stdout + first.stderr)
        self.assertIn("No space left on device", first.stderr)
        claim = os.path.join(self.work, "claim.json")
        self.store.get("runs/full.h5.shards/a0/writer.lock", claim)
        with open(claim) as f:
            kept = json.load(f)
        self.assertIn("No space left on device", kept.get("ended", ""), kept)
        self.assertIn(self.url, kept["ended"], "the bucket's URL, not the mirror's path")

        status = run(["status", self.url], env=self.env(scratch_dir(self)))  # another machine
        assert_says_the_disk_was_full(self, status.stdout + status.stderr)

        # A fresh machine with room resumes, and says first why the last run ended.
        resumed = run(["run", self.job, "-q", "--resume"], env=self.env(scratch_dir(self)))
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        banner = [line for line in resumed.stderr.splitlines() if line.startswith("shardrun: resuming:")]
        self.assertEqual(len(banner), 1, resumed.stderr)
        self.assertIn("No space left on device", banner[0])
        self.assertNotIn(KILL_GUESS, banner[0])
        after = run(["status", self.url], env=self.env(scratch_dir(self)))
        self.assertEqual(after.returncode, 0, after.stdout + after.stderr)
        self.assertNotIn("ended without a summary", after.stdout + after.stderr)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main()
