"""A stop or drain signal that comes while a rank starts (issue 39's trial 41b): before the run's
handler was in place (MPI_Init and the set-up take a while) it ended the rank with the default
action, exit 138 (SIGUSR1) or 143 (SIGTERM), which a Slurm element's requeue logic does not read
as a drain. Now the handler is installed right after the rank's guard starts, so the signal is
the run's: a drain before any task started is exit 4 (NO PROGRESS), a stop exit 3, and the job
runs whole with --resume afterwards."""
import os
import signal
import subprocess
import time
import unittest

from harness import SHARDRUN, clean_env, run, scratch_dir
from jobs import write_job

JOB = """
name: early
task: exec
sweep: {{a: {{range: [0, 4, 1]}}}}
exec:
  argv: [sh, -c, 'echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/early.h5}}
"""


def guard_started(pid):
    """Whether the rank `pid` has forked its orphan guard (the first thing `run` does)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = f.read().split()
    except OSError:
        return False
    for child in children:
        try:
            with open(f"/proc/{child}/comm") as f:
                if f.read().strip() == "shardrun-guard":
                    return True
        except OSError:
            pass
    return False


class EarlySignalTest(unittest.TestCase):
    def signal_at_start(self, sig, *options):
        work = scratch_dir(self)
        job = write_job(work, JOB.format(work=work))
        proc = subprocess.Popen([SHARDRUN, "run", job, *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.communicate()))
        deadline = time.time() + 30
        while not guard_started(proc.pid):
            self.assertIsNone(proc.poll(), "the run ended before its guard started")
            self.assertLess(time.time(), deadline, "no guard after 30 s")
            time.sleep(0.001)
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=60)
        return job, work, proc.returncode, out, err

    def test_sigusr1_while_starting_is_a_drain_without_progress(self):
        job, work, code, out, err = self.signal_at_start(signal.SIGUSR1)
        self.assertEqual(code, 4, out + err)
        self.assertIn("NO PROGRESS: no task finished in this run; the drain came before any task started", out)
        resumed = run(["run", job, "-q", "--resume"])
        self.assertEqual(resumed.returncode, 0, resumed.stderr)

    def test_a_drain_without_progress_under_q_gives_its_advice_not_resume(self):
        # -q keeps one line; for exit 4 it is the NO PROGRESS advice, since --resume with as
        # little time would cut the same task short again (trial 41b: it said "run again with --resume").
        _, _, code, out, err = self.signal_at_start(signal.SIGUSR1, "-q")
        self.assertEqual(code, 4, out + err)
        lines = [line for line in err.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("early stopped by SIGUSR1 to rank 0: 4 of 4 tasks pending; NO PROGRESS: no task finished in this "
                      "run; the drain came before any task started", lines[0])
        self.assertNotIn("run again with --resume", lines[0])

    def test_sigterm_while_starting_is_a_stop(self):
        job, work, code, out, err = self.signal_at_start(signal.SIGTERM)
        self.assertEqual(code, 3, out + err)
        self.assertIn("interrupted by SIGTERM", out)


if __name__ == "__main__":
    unittest.main()
