"""A disk that is already full when the run starts (issue 39's trial): the run ends before its output
is open, and that path must say what a disk filling up during the run says. Exit 1 (not 2: the
input is fine), one line with the system's reason and the docs page; and when the output exists
(a --resume on a disk still full), the element's lock keeps that line, so `status` and the next
--resume repeat it instead of guessing at a killed rank. A 256 KiB tmpfs mounted by the test (needs
root), filled to the last byte, unmounted in every exit path."""
import errno
import os
import subprocess
import unittest

from harness import run, scratch_dir
from jobs import write_job

import full_disk_status_test  # (the module, not its TestCase: unittest.main() would run that here too)
from full_disk_status_test import assert_says_the_disk_was_full
from full_disk_test import JOB  # 200 tasks whose results are three times the disk


def fill(disk):
    """Writes a file on `disk` until the disk is full (unbuffered: nothing is left to flush at close)."""
    fd = os.open(os.path.join(disk, "filler"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)


class FullDiskAtStartTest(unittest.TestCase):
    def mount(self):
        return full_disk_status_test.FullDiskStatusTest.mount(self, "256k")  # unmounted in every exit path

    def assert_one_disk_full_line(self, proc):
        self.assertEqual(proc.returncode, 1, proc.stderr)
        # shardrun's lines (under mpiexec, Open MPI adds its own banner about the non-zero exit);
        # the --resume banner is checked apart.
        lines = [line for line in proc.stderr.splitlines()
                 if line.startswith("shardrun:") and not line.startswith("shardrun: resuming:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("No space left on device", lines[0])
        self.assertIn("docs/troubleshooting.md#disk-full", lines[0])
        self.assertIn("rerun with --resume", lines[0])
        self.assertNotIn("choose a writable output.path", lines[0])

    def test_a_fresh_output_on_a_full_disk(self):
        work, disk = self.mount()
        job = write_job(work, JOB.replace("DISK", disk))
        fill(disk)

        proc = run(["run", job, "-q"])

        self.assert_one_disk_full_line(proc)

    def check_resume_on_a_disk_still_full(self, np):
        work, disk = self.mount()
        job = write_job(work, JOB.replace("DISK", disk))
        out = os.path.join(disk, "out.h5")
        first = run(["run", job, "-q"], np=np)
        self.assertEqual(first.returncode, 1, first.stderr)  # the disk filled up during the run
        fill(disk)  # and what the failed commit gave back is taken too: --resume meets a full disk at once

        resumed = run(["run", job, "-q", "--resume"], np=np)

        self.assert_one_disk_full_line(resumed)
        banner = [line for line in resumed.stderr.splitlines() if line.startswith("shardrun: resuming:")]
        self.assertEqual(len(banner), 1, resumed.stderr)
        self.assertIn("No space left on device", banner[0])
        status = run(["status", out])
        assert_says_the_disk_was_full(self, status.stdout + status.stderr)

        # Room again: the next --resume finishes.
        os.remove(os.path.join(disk, "filler"))
        subprocess.run(["mount", "-o", "remount,size=64m", disk], check=True)
        done = run(["run", job, "-q", "--resume"], np=np)
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_resume_on_a_disk_still_full_one_rank(self):
        self.check_resume_on_a_disk_still_full(None)

    def test_resume_on_a_disk_still_full_two_ranks(self):
        self.check_resume_on_a_disk_still_full(2)


if __name__ == "__main__":
    unittest.main()
