"""A run drained before any task finished, as new users met it following docs/ (issue 39's trials):
- its summary's "busy per rank" counts the time of the attempts the drain cut short (it said 0.00 s:
  their time was dropped with them), and its NO PROGRESS advice names no launcher's time limit under
  plain mpirun (it said "Slurm: --time");
- `shardrun status` of its output, where no rank has committed a task, prints no `element rank`
  header over no row (and `--by-host` no host header), only the counts and what to do.
Two ranks, each running a 30 s task that the drain (drain_timeout 1 s) cuts short: exit 4."""
import os
import re
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, kill_task_processes, rank_pid, run, scratch_dir, task_running
from jobs import write_job
from signal_drain_test import LONG_JOB

BUSY = re.compile(r"busy per rank: min ([0-9.]+) s, mean ([0-9.]+) s, max ([0-9.]+) s")
CUT = re.compile(r"NO PROGRESS: no task finished in this run; task #\d+ ran ([0-9.]+)s and was cut short by the drain")


class DrainedBeforeAnyCommitTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.out = os.path.join(self.work, "long.h5")
        self.job = write_job(self.work, LONG_JOB.format(work=self.work))
        self.addCleanup(kill_task_processes, self.work)

    def drain_when_both_run(self):
        """Runs the job on 2 ranks; SIGUSR1 to rank 0 once a task of each rank runs. (exit code, stdout, stderr)"""
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", self.job, "--progress", "plain"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            pid = rank_pid(self.job, 0, time.time() + 60)
            deadline = time.time() + 60
            # Tasks are claimed dynamically: any two of the four running means each rank has one.
            while sum(task_running(self.out, task) for task in range(4)) < 2:
                self.assertIsNone(proc.poll(), "the run ended before its tasks ran")
                self.assertLess(time.time(), deadline, "two tasks did not start within 60 s")
                time.sleep(0.05)
            os.kill(pid, signal.SIGUSR1)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        return proc.returncode, out, err

    def test_summary_and_status_after_a_drain_with_nothing_committed(self):
        code, out, err = self.drain_when_both_run()
        said = out + err
        self.assertEqual(code, 4, said)
        # Busy: each rank was busy with its cut-short task until the drain stopped it.
        busy = BUSY.search(said)
        self.assertIsNotNone(busy, said)
        low, _, high = (float(value) for value in busy.groups())
        self.assertGreater(low, 0.0, f"a rank's cut-short attempt counts as busy: {said}")
        cut = CUT.search(said)
        self.assertIsNotNone(cut, said)
        self.assertGreaterEqual(high + 0.05, float(cut.group(1)), "the longest cut-short attempt is in the busy time")
        # mpirun has no time limit to raise: no Slurm advice, the rest stays.
        self.assertNotIn("Slurm", said)
        self.assertIn("cannot finish it: checkpoint inside the task, or split it into smaller tasks", said)

        # status: the counts, and no header over no row.
        status = run(["status", self.out])
        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)
        self.assertIn("0 ok, 0 failed, 4 pending — NOT complete", status.stdout)
        self.assertNotIn("element  rank", status.stdout)
        self.assertIn("unfinished array elements (rerun with --resume): 0", status.stdout)
        by_host = run(["status", self.out, "--by-host"])
        self.assertEqual(by_host.returncode, 3, by_host.stdout + by_host.stderr)
        self.assertNotIn("mean task", by_host.stdout)
        self.assertIn("4 pending", by_host.stdout)


if __name__ == "__main__":
    unittest.main()
