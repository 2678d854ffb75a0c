"""A full disk that refuses the master file after every task committed (issue 39's trial): the
run exits 1, and then `status` must not say "complete" nor exit 0: it exits 3 (not complete, no
run writing it), says the results file is missing, quotes the reason the run recorded (no guess
at a killed rank), and says that --resume writes it; `table` says the same. After --resume on a
disk with room, status is complete (exit 0). A 3 MiB tmpfs mounted by the test (needs root),
unmounted in every exit path; at 2 ranks (the master is written by rank 0 after an agreement)."""
import os
import subprocess
import unittest

from harness import SOURCE_DIR, run, scratch_dir

KILL_GUESS = "a rank was killed"
STATUS_PENDING = 3


class MasterMissingStatusTest(unittest.TestCase):
    def test_status_is_not_complete_while_the_master_is_missing(self):
        work = scratch_dir(self)
        disk = os.path.join(work, "disk")
        os.mkdir(disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", disk], check=True)
        self.addCleanup(lambda: subprocess.run(["umount", disk], check=False) if os.path.ismount(disk) else None)
        out = os.path.join(disk, "h.h5")
        # 33 tasks whose shards fit in 3 MiB, but not shards and master together.
        job = os.path.join(SOURCE_DIR, "examples", "heat-sweep.yaml")
        args = ["run", job, "-q", "--set", f"output.path={out}", "--set", "params.stride=1", "--set", "params.steps=200",
                "--set", "device=cpu"]
        proc = run(args, np=2)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("cannot write the master file", proc.stderr)
        self.assertFalse(os.path.exists(out))

        status = run(["status", out])
        said = status.stdout + status.stderr
        self.assertEqual(status.returncode, STATUS_PENDING, said)
        self.assertIn("33 ok, 0 failed, 0 pending — NOT complete", said)
        self.assertIn(f"the results file {out} is missing", said)
        self.assertIn("--resume` writes it", said)
        # The reason the run recorded, not a guess.
        self.assertIn("on an error: cannot write the master file", said)
        self.assertIn("No space left on device", said)
        self.assertNotIn(KILL_GUESS, said)

        table = run(["table", out])
        self.assertIn("33 of 33 committed (every task, but its run ended before it wrote the results file", table.stderr)
        self.assertNotIn("runs the rest", table.stderr)

        subprocess.run(["mount", "-o", "remount,size=64m", disk], check=True)
        resumed = run([*args, "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertTrue(os.path.exists(out))
        after = run(["status", out])
        self.assertEqual(after.returncode, 0, after.stdout + after.stderr)
        self.assertIn("— complete", after.stdout)
        self.assertNotIn("is missing", after.stdout)


if __name__ == "__main__":
    unittest.main()
