"""Stop and drain signals at two edges new users met (issue 39's trial 41a):
- a signal to a rank that has finished its share and waits for the others (a long task runs on
  the other rank): it reached no other rank, so the job ran on until that task ended by itself
  (1000 s here); now it stops (SIGTERM) or drains (SIGUSR1) the job as a signal to any rank does;
- one SIGUSR1 that reaches the ranks twice (GNU `timeout` signals mpirun as its child and again
  through its process group; mpirun passes both on): the second copy counted as "a signal during
  a drain" and stopped the running tasks, cutting them short (exit 4, NO PROGRESS). One sender's
  repeat within a second now counts once, as the guard's copy of one kill already did."""
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, kill_task_processes, rank_pid, scratch_dir, \
    wait_for_no_task_processes
from jobs import write_job

# Task 5 runs long on whichever rank takes it and says which; the others end at once.
IDLE_JOB = """
name: idle
task: exec
sweep: {{a: {{range: [0, 6, 1]}}}}
timeout_grace: 2s
drain_timeout: 2s
exec:
  argv: [sh, -c, 'if [ {{a}} = 5 ]; then echo $OMPI_COMM_WORLD_RANK > {work}/long.rank; sleep 1000; fi;
                  echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT; touch {work}/done.{{a}}']
  results: {{v: float64}}
output: {{path: {work}/idle.h5}}
"""

# Every task takes 3 s; a drain lets the running ones finish.
DRAIN_JOB = """
name: twice
task: exec
sweep: {{a: {{range: [0, 8, 1]}}}}
exec:
  argv: [sh, -c, 'touch {work}/started.{{a}}; sleep 3; echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/twice.h5}}
"""


class StopSignalEdgesTest(unittest.TestCase):
    def start(self, text):
        self.work = scratch_dir(self)
        self.addCleanup(kill_task_processes, self.work)
        self.job = write_job(self.work, text.format(work=self.work))
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", self.job],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and (proc.kill(), proc.communicate()))
        return proc

    def wait_for(self, path, proc):
        deadline = time.time() + 60
        while not os.path.exists(path):
            self.assertIsNone(proc.poll(), f"the job ended before {path}")
            self.assertLess(time.time(), deadline, f"no {path} after 60 s")
            time.sleep(0.05)

    def idle_rank_after_its_share(self):
        """Starts IDLE_JOB; returns (mpirun, the idle rank, its pid) once the idle rank has run its share."""
        proc = self.start(IDLE_JOB)
        self.wait_for(os.path.join(self.work, "long.rank"), proc)
        with open(os.path.join(self.work, "long.rank")) as f:
            idle = 1 - int(f.read())
        pid = rank_pid(self.job, idle, time.time() + 30)
        # The other five tasks end at once: the idle rank has run out of ids and waits.
        deadline = time.time() + 60
        while len([name for name in os.listdir(self.work) if name.startswith("done.")]) < 5:
            self.assertLess(time.time(), deadline, "the short tasks did not finish")
            time.sleep(0.1)
        time.sleep(1)  # past its last commit, into the wait for the other rank
        return proc, idle, pid

    def test_sigterm_to_the_idle_rank_stops_the_job(self):
        proc, idle, pid = self.idle_rank_after_its_share()
        os.kill(pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=60)  # before: the long task's 1000 s
        self.assertEqual(proc.returncode, 3, out + err)
        self.assertIn(f"interrupted by SIGTERM to rank {idle}:", out)
        self.assertRegex(out, r"5 ok, 0 failed, 1 interrupted")
        # A stopped run writes no results file, so the summary names none (trial 41b), only what reads it.
        output = os.path.join(self.work, "idle.h5")
        self.assertFalse(os.path.exists(output))
        self.assertNotIn(f"results: {output}\n", out)
        self.assertIn(f"committed so far: shardrun status {output} (the results file is written once every task "
                      "has ended; --resume gets there)", out)
        self.assertEqual(wait_for_no_task_processes(self.work, 10), [], "the long task outlived the job")

    def test_sigusr1_to_the_idle_rank_drains_the_job(self):
        proc, idle, pid = self.idle_rank_after_its_share()
        os.kill(pid, signal.SIGUSR1)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 3, out + err)
        self.assertIn(f"interrupted by SIGUSR1 to rank {idle}, then drain_timeout ran out", out)
        self.assertEqual(wait_for_no_task_processes(self.work, 10), [], "the long task outlived the job")

    def test_one_sigusr1_that_mpirun_passes_on_twice_drains(self):
        proc = self.start(DRAIN_JOB)
        self.wait_for(os.path.join(self.work, "started.0"), proc)
        self.wait_for(os.path.join(self.work, "started.1"), proc)
        # What GNU timeout does without --foreground: mpirun gets the signal twice, moments apart
        # (two at the same instant merge into one pending signal, and the bug hid).
        proc.send_signal(signal.SIGUSR1)
        time.sleep(0.05)
        proc.send_signal(signal.SIGUSR1)
        out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 3, out + err)
        self.assertNotIn("NO PROGRESS", out)
        self.assertRegex(out, r"2 ok, 0 failed, 6 not started of 8 tasks")


if __name__ == "__main__":
    unittest.main()
