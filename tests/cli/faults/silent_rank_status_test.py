"""After a rank stopped responding (SIGSTOP with rank_timeout 3s), the run exits 1 naming it;
then `status` quotes that recorded reason ("stopped responding") instead of guessing that "a
rank was killed ... or a host crashed" (issue 39's trial), and --resume finishes the job."""
import os
import signal
import subprocess
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, clean_env, kill_task_processes, rank_pid, run, scratch_dir,
                     wait_for_no_ranks)
from jobs import write_job

KILL_GUESS = "a rank was killed"

JOB = """
name: silent
task: exec
sweep: {a: {range: [0, 60, 1]}}
schedule: dynamic
rank_timeout: 3s
exec:
  argv: [sh, -c, 'sleep 0.5; echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/silent.h5}
"""


class SilentRankStatusTest(unittest.TestCase):
    def test_status_quotes_the_silent_rank(self):
        work = scratch_dir(self)
        self.addCleanup(kill_task_processes, work)
        job = write_job(work, JOB.replace("OUT", work))
        out = os.path.join(work, "silent.h5")
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        victim = rank_pid(job, 1, time.time() + 30)
        self.addCleanup(lambda: os.path.exists(f"/proc/{victim}") and os.kill(victim, signal.SIGKILL))
        time.sleep(1.0)
        os.kill(victim, signal.SIGSTOP)
        _, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("stopped responding", err)
        self.assertEqual(wait_for_no_ranks(job, 15), [])

        status = run(["status", out])
        said = status.stdout + status.stderr
        self.assertEqual(status.returncode, 3, said)
        self.assertIn("the last run ended without a summary on an error: rank 1 on", said)
        self.assertIn("stopped responding", said)
        self.assertNotIn(KILL_GUESS, said)

        resumed = run(["run", job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)


if __name__ == "__main__":
    unittest.main()
