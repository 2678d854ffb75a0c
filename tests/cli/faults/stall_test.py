"""A group member that stops (SIGSTOP, as a hung node looks) during a `train` task: the other
member names it and its host within collective_timeout, the job ends (nothing hangs), and
what was committed before stays readable."""
import os
import signal
import socket
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, progress_reaches, rank_pid, scratch_dir
from jobs import write_job

JOB = """
name: stall
task: train
params: {features: 64, classes: 4, width: 256, depth: 3, samples: 65536, batch: 512, epochs: 200}
sweep: {seed: [1, 2, 3]}
gpus_per_task: 2
collective_timeout: 2s
output: {path: OUT/stall.h5}
"""


def task_running(proc, deadline):
    """True once one of rank 0's JSON progress lines counts a running task."""
    return progress_reaches(proc, deadline, lambda e: e.get("running", 0) > 0)


class StallTest(unittest.TestCase):
    def test_stopped_member_is_named_and_the_job_ends(self):
        work = scratch_dir()
        job = write_job(work, JOB.replace("OUT", work))
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "--progress", "json",
                                 "--progress-interval", "0.2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            victim = rank_pid(job, 1, time.time() + 30)
            # Stop it only once the group's task runs: a rank stopped before its group's first
            # guarded collective is caught by the rank heartbeat (rank_timeout, 60 s), not here.
            self.assertTrue(task_running(proc, time.time() + 30), "the group's task never started")
            time.sleep(1.0)  # into the training steps
            os.kill(victim, signal.SIGSTOP)
            started = time.time()
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertLess(time.time() - started, 30, "the job did not end after the stall")
        self.assertNotEqual(proc.returncode, 0, out + err)
        host = socket.gethostname()
        self.assertIn(f"did not complete within 2 s; not responding: member 1 (world rank 1 on {host}, ", err)
        self.assertIn("of group 0 (2 members)", err)
        # mpirun ends the stopped rank with SIGCONT, SIGTERM and SIGKILL; give that a moment.
        gone_by = time.time() + 15
        while os.path.exists(f"/proc/{victim}") and time.time() < gone_by:
            time.sleep(0.1)
        self.assertFalse(os.path.exists(f"/proc/{victim}"), "the stopped rank outlived the job by 15 s")


if __name__ == "__main__":
    unittest.main()
