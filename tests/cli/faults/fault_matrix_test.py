"""The faults a cluster throws, at FAULT_NP ranks with output.layout FAULT_LAYOUT (ctest runs
2 and 4 ranks, shards and single): kill -9 at five points (rank 0 early, the last rank mid-run,
rank 0 near the end, mpirun, a rank during --resume), SIGTERM and SIGUSR1 to one rank,
SIGTERM to mpirun, and a SIGSTOP'd rank. After each: no task process is left (ps), the output
never claims to be complete while tasks are pending, what finished before a SIGTERM to mpirun
is committed, and --resume ends with every task ok and the right values."""
import glob
import os
import signal
import socket
import subprocess
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, clean_env, kill_task_processes, rank_pid, run, scratch_dir,
                     status_json, task_processes, wait_for_no_ranks, wait_for_no_task_processes)
from jobs import h5py_module, write_job

NP = int(os.environ.get("FAULT_NP", "2"))
LAYOUT = os.environ.get("FAULT_LAYOUT", "shards")
TASKS = 30 * NP

# Each task leaves a background child that ignores SIGTERM: a stop must not wait for it.
JOB = f"""
name: faults
task: exec
sweep: {{a: {{range: [0, {TASKS}, 1]}}}}
schedule: dynamic
timeout_grace: 30s
rank_timeout: 3s
exec:
  argv: [sh, -c, '(trap "" TERM; sleep 60) & sleep 0.1; echo "{{{{\\"v\\": $SHARDRUN_PARAM_A}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
  keep_files: true    # results_written() counts the finished tasks' result.json files
output: {{path: OUT/faults.h5, layout: {LAYOUT}}}
"""


class FaultMatrixTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.addCleanup(kill_task_processes, self.work)
        self.job = write_job(self.work, JOB.replace("OUT", self.work))
        self.out = os.path.join(self.work, "faults.h5")

    def start(self, *extra):
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(NP), SHARDRUN, "run", self.job, "-q", *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        return proc

    def results_written(self):
        return len(glob.glob(os.path.join(self.out + ".tasks", "*", "result.json")))

    def wait_for_results(self, count, seconds=60):
        deadline = time.time() + seconds
        while self.results_written() < count and time.time() < deadline:
            time.sleep(0.05)

    def end(self, proc):
        out, err = proc.communicate(timeout=120)
        left = wait_for_no_task_processes(self.work, 10)
        self.assertEqual(left, [], f"task processes outlived the job: {left}")
        return proc.returncode, err

    def status(self):
        return status_json(self.out)[1]

    def assert_not_complete(self):
        status = self.status()
        if status is not None:
            self.assertGreater(status["pending"], 0, "the fault came after the last task: nothing was tested")
        if os.path.exists(self.out):
            with h5py_module().File(self.out, "r") as f:
                self.assertFalse(bool(f.attrs.get("complete", False)), "complete=True while tasks are pending")

    def resume_and_check(self):
        resumed = run(["run", self.job, "-q", "--resume"], np=NP)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertEqual(wait_for_no_task_processes(self.work, 10), [])
        # A killed rank's scratch stdout, stderr and result folder go when the next run starts.
        scratch = [n for n in os.listdir(self.out + ".tasks") if n.startswith((".scratch-", ".running-"))]
        self.assertEqual(scratch, [], "scratch files or running-task indexes of dead ranks were left behind")
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(list(f["results/v"][:]), [float(a) for a in range(TASKS)])
            self.assertEqual(set(f["tasks/status"][:].tolist()), {1}, "a task is not ok (1) after --resume")

    def signal_rank(self, rank, sig, after_results):
        proc = self.start()
        pid = rank_pid(self.job, rank, time.time() + 30)
        self.wait_for_results(after_results)
        os.kill(pid, sig)
        return proc

    # kill -9 at five points

    def test_kill9_rank0_early(self):
        code, err = self.end(self.signal_rank(0, signal.SIGKILL, 1))
        self.assertNotEqual(code, 0, err)
        self.assert_not_complete()
        self.resume_and_check()

    def test_kill9_last_rank_mid_run(self):
        code, err = self.end(self.signal_rank(NP - 1, signal.SIGKILL, TASKS // 3))
        self.assertNotEqual(code, 0, err)
        self.assert_not_complete()
        self.resume_and_check()

    def test_kill9_rank0_near_the_end(self):
        code, err = self.end(self.signal_rank(0, signal.SIGKILL, TASKS - 2 * NP))
        self.assertNotEqual(code, 0, err)
        self.resume_and_check()

    def test_kill9_mpirun(self):
        proc = self.start()
        self.wait_for_results(TASKS // 3)
        proc.kill()
        self.end(proc)
        # The orphaned ranks notice that mpirun is gone and exit (they hold the output's lock
        # until then, so a --resume started earlier is rightly refused as a second writer).
        self.assertEqual(wait_for_no_ranks(self.job, 30), [], "ranks outlived their mpirun")
        self.assert_not_complete()
        self.resume_and_check()

    def test_kill9_during_resume(self):
        code, err = self.end(self.signal_rank(0, signal.SIGKILL, TASKS // 4))
        self.assertNotEqual(code, 0, err)
        # The first run may have got past TASKS // 2 before mpirun stopped it (keep_files leaves
        # its result files), so the kill waits for results of the resumed run itself: once a
        # task has run, every rank is past MPI_Init. Open MPI 4.1's mpirun hangs for good, with
        # the other ranks left as zombies, when a rank is killed inside MPI_Init (a plain MPI
        # hello world does it too), which is mpirun's fault to fix, not shardrun's.
        already = self.results_written()
        proc = self.start("--resume")
        pid = rank_pid(self.job, NP - 1, time.time() + 30)
        self.wait_for_results(already + NP)
        os.kill(pid, signal.SIGKILL)
        code, err = self.end(proc)
        self.assertNotEqual(code, 0, "the resumed run ended before the kill: nothing was tested")
        self.resume_and_check()

    # signals that drain

    def test_sigterm_to_rank0_drains(self):
        code, err = self.end(self.signal_rank(0, signal.SIGTERM, TASKS // 3))
        self.assertEqual(code, 3, err)
        self.assert_not_complete()
        self.resume_and_check()

    def test_sigusr1_to_the_last_rank_drains(self):
        code, err = self.end(self.signal_rank(NP - 1, signal.SIGUSR1, TASKS // 3))
        self.assertEqual(code, 3, err)
        self.assert_not_complete()
        self.resume_and_check()

    def test_sigterm_to_mpirun_keeps_what_finished(self):
        # Open MPI sends SIGCONT, SIGTERM and SIGKILL a second apart; mpirun itself then exits
        # 1 whatever the ranks do, so the test looks at what was kept, not at the code.
        proc = self.start()
        self.wait_for_results(TASKS // 3)
        proc.send_signal(signal.SIGTERM)
        self.end(proc)
        self.assert_not_complete()
        if LAYOUT == "shards":
            # A task whose program wrote its result had finished, bar the one running per rank.
            status = self.status()
            self.assertGreaterEqual(status["ok"], self.results_written() - NP,
                                    "finished tasks were lost: the stop did not commit them before mpirun's SIGKILL")
        self.resume_and_check()

    # a rank that stops responding

    def test_a_stopped_rank_is_named_and_the_job_ends(self):
        proc = self.start()
        victim = rank_pid(self.job, NP - 1, time.time() + 30)
        self.wait_for_results(TASKS // 4)
        os.kill(victim, signal.SIGSTOP)
        self.addCleanup(lambda: os.path.exists(f"/proc/{victim}") and os.kill(victim, signal.SIGKILL))
        code, err = self.end(proc)
        self.assertNotEqual(code, 0, err)
        self.assertIn(f"rank {NP - 1} on {socket.gethostname()} stopped responding: no heartbeat for", err)
        self.assert_not_complete()
        self.resume_and_check()


# Tasks far longer than every limit (issue 23, point 8): `sleep 1000` unless the test has made
# OUT/short (sleep 2) or OUT/fast (no sleep) exist, so that --resume can finish the job.
LONG_TASKS = 3 * NP
GRACE = 3
LONG_JOB = """
name: long
task: exec
sweep: {a: {range: [0, LONG_TASKS, 1]}}
schedule: dynamic
timeout_grace: GRACEs
drain_timeout: DRAINs
exec:
  argv: [sh, -c, 'if [ -e OUT/fast ]; then :; elif [ -e OUT/short ]; then sleep 2; else exec sleep 1000; fi; echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/long.h5, layout: LAYOUT}
"""


class LongTaskSignalTest(unittest.TestCase):
    """SIGTERM stops and SIGUSR1 drains, the way Slurm users expect, with tasks far longer than
    timeout_grace and drain_timeout: the times asserted are the limits the README promises."""

    def start(self, drain=60, short=False):
        self.work = scratch_dir()
        self.addCleanup(kill_task_processes, self.work)
        text = (LONG_JOB.replace("LAYOUT", LAYOUT).replace("OUT", self.work).replace("LONG_TASKS", str(LONG_TASKS))
                .replace("GRACE", str(GRACE)).replace("DRAIN", str(drain)))
        self.job = write_job(self.work, text)
        self.out = os.path.join(self.work, "long.h5")
        if short:
            open(os.path.join(self.work, "short"), "w").close()
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(NP), SHARDRUN, "run", self.job],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        self.pids = [rank_pid(self.job, r, time.time() + 30) for r in range(NP)]
        # Every rank runs a task before the signal.
        deadline = time.time() + 60
        while len(task_processes(self.work)) < NP and time.time() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(len(task_processes(self.work)), NP, "the ranks never started their tasks")
        return proc

    def wait(self, proc):
        out, err = proc.communicate(timeout=120)
        ended = time.time()
        self.assertEqual(wait_for_no_task_processes(self.work, 10), [], "task processes outlived the job")
        return proc.returncode, out, err, ended

    def resume_and_check(self):
        open(os.path.join(self.work, "fast"), "w").close()
        resumed = run(["run", self.job, "-q", "--resume"], np=NP)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(list(f["results/v"][:]), [float(a) for a in range(LONG_TASKS)])

    def test_sigterm_to_one_rank_stops_every_rank_within_the_grace(self):
        proc = self.start()
        os.kill(self.pids[NP - 1], signal.SIGTERM)
        signalled = time.time()
        code, out, err, ended = self.wait(proc)
        self.assertEqual(code, 3, err)
        self.assertLess(ended - signalled, GRACE + 2, "the job did not stop within timeout_grace + 2 s")
        self.assertIn(f"interrupted by SIGTERM to rank {NP - 1}", out)
        self.assertRegex(out, rf"0 ok, 0 failed, {NP} interrupted, {LONG_TASKS - NP} not started of {LONG_TASKS} tasks")
        status = status_json(self.out)[1]
        self.assertEqual((status["ok"], status["failed"], status["pending"]), (0, 0, LONG_TASKS),
                         "an interrupted task must stay pending, never failed")
        self.resume_and_check()

    def test_sigusr1_lets_running_tasks_finish_and_starts_no_new_one(self):
        proc = self.start(drain=60, short=True)
        os.kill(self.pids[0], signal.SIGUSR1)
        code, out, err, _ = self.wait(proc)
        self.assertEqual(code, 3, err)
        status = status_json(self.out)[1]
        self.assertEqual(status["ok"], NP, "the running tasks should have finished, and no other started")
        self.assertEqual(status["pending"], LONG_TASKS - NP)
        self.assertIn("interrupted by SIGUSR1 to rank 0:", out)
        self.resume_and_check()

    def test_sigusr1_stops_the_tasks_when_drain_timeout_runs_out(self):
        drain = 2
        proc = self.start(drain=drain)
        os.kill(self.pids[NP - 1], signal.SIGUSR1)
        signalled = time.time()
        code, out, err, ended = self.wait(proc)
        # No task could finish before the drain ran out: exit 4, not 3, so that no scheduler
        # requeues the same cut-short tasks forever (issue 35, point 1).
        self.assertEqual(code, 4, err)
        self.assertIn("NO PROGRESS: no task finished in this run", out)
        self.assertGreaterEqual(ended - signalled, drain, "the tasks were stopped before drain_timeout")
        self.assertLess(ended - signalled, drain + GRACE + 2, "the drain did not end within drain_timeout + grace")
        self.assertIn(f"interrupted by SIGUSR1 to rank {NP - 1}, then drain_timeout ran out", out)
        self.resume_and_check()

    def test_a_signal_during_a_drain_stops_at_once(self):
        proc = self.start(drain=600)
        os.kill(self.pids[0], signal.SIGUSR1)
        time.sleep(0.5)
        self.assertIsNone(proc.poll(), "a drain of 600 s ended by itself")
        os.kill(self.pids[0], signal.SIGTERM)
        signalled = time.time()
        code, out, err, ended = self.wait(proc)
        self.assertEqual(code, 4, err)  # drained, then stopped, before any task finished (issue 35, point 1)
        self.assertLess(ended - signalled, GRACE + 2, "a second signal did not stop the drain")
        self.resume_and_check()


if __name__ == "__main__":
    unittest.main()
