"""After a run that a full disk ended (issue 39: no summary, exit 1), `shardrun status` and the
`--resume` banner say the disk was full and name docs/troubleshooting.md#disk-full, instead of
guessing at a killed rank or a crashed host. A 256 KiB tmpfs mounted by the test (needs root),
unmounted in every exit path; at 1 and 2 ranks (any rank may meet the full disk)."""
import os
import subprocess
import unittest

from harness import run, scratch_dir
from jobs import write_job

from full_disk_test import JOB  # the same job: 200 tasks whose results are three times the disk

KILL_GUESS = "a rank was killed"


def assert_says_the_disk_was_full(test, said):
    """What `status` says of a run a full disk ended: that, with its docs page, and no guessed kill."""
    test.assertIn("the last run ended without a summary on an error", said)
    test.assertIn("No space left on device", said)
    test.assertIn("docs/troubleshooting.md#disk-full", said)
    test.assertNotIn(KILL_GUESS, said)


class FullDiskStatusTest(unittest.TestCase):
    def mount(self, size):
        work = scratch_dir(self)
        disk = os.path.join(work, "disk")
        os.mkdir(disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", disk], check=True)
        # Registered at once: the disk goes whatever the test does after this line.
        self.addCleanup(lambda: subprocess.run(["umount", disk], check=False) if os.path.ismount(disk) else None)
        return work, disk

    def check(self, np):
        work, disk = self.mount("256k")
        job = write_job(work, JOB.replace("DISK", disk))
        out = os.path.join(disk, "out.h5")
        proc = run(["run", job, "-q"], np=np)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("No space left on device", proc.stderr)

        status = run(["status", out])
        assert_says_the_disk_was_full(self, status.stdout + status.stderr)

        # Room again: --resume says why the last run ended, then finishes it.
        subprocess.run(["mount", "-o", "remount,size=64m", disk], check=True)
        resumed = run(["run", job, "-q", "--resume"], np=np)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        banner = [line for line in resumed.stderr.splitlines() if line.startswith("shardrun: resuming:")]
        self.assertEqual(len(banner), 1, resumed.stderr)
        self.assertIn("No space left on device", banner[0])
        self.assertIn("docs/troubleshooting.md#disk-full", banner[0])
        self.assertNotIn(KILL_GUESS, banner[0])

        # The next run's lock cleared the reason: a later status has no unfinished run to explain.
        after = run(["status", out])
        self.assertNotIn("ended without a summary", after.stdout + after.stderr)

    def test_one_rank(self):
        self.check(None)

    def test_two_ranks(self):
        self.check(2)


if __name__ == "__main__":
    unittest.main()
