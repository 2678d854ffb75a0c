"""SIGUSR1 or SIGTERM to ONE rank drains the whole job (Slurm's --signal, scancel of one task,
a preemption notice): every rank stops taking tasks, exit 3, what finished is kept, and
--resume completes the job with every task ok exactly once."""
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, rank_pid, run, run_and_signal_rank, scratch_dir, status_json
from jobs import h5py_module, write_job

JOB = r"""
name: drain
task: exec
sweep: {a: {range: [0, 60, 1]}}
schedule: dynamic
exec:
  argv: [sh, -c, 'sleep 0.2; echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/drain.h5}
"""

# Four tasks of 30 s on 2 ranks, and 1 s of drain: no task can finish in a drained run (also
# drained_before_any_commit_test's job).
LONG_JOB = """
name: long
task: exec
drain_timeout: 1s
sweep: {{a: [0, 1, 2, 3]}}
exec: {{argv: [sleep, "30"]}}
output: {{path: {work}/long.h5}}
"""


def committed_ok(out):
    """Tasks committed ok so far, as `shardrun status` reads them while the job runs."""
    code, report = status_json(out)
    return report.get("ok", 0) if report else 0


class SignalDrainTest(unittest.TestCase):
    def drain(self, rank, sig):
        work = scratch_dir()
        job = write_job(work, JOB.replace("OUT", work))
        out = os.path.join(work, "drain.h5")
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            pid = rank_pid(job, rank, time.time() + 30)
            # Signal once a task has committed (a fixed sleep was too short for a loaded
            # sanitizer build to start the ranks), so "what finished is kept" is tested.
            deadline = time.time() + 60
            while time.time() < deadline and committed_ok(out) == 0:
                time.sleep(0.1)
            os.kill(pid, sig)
            started = time.time()
            out_text, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(proc.returncode, 3, err)
        self.assertLess(time.time() - started, 15, "the other rank did not stop")
        status = status_json(out)[1]
        self.assertGreater(status["pending"], 0, "the job ran to the end: the signal did not stop it")
        self.assertGreater(status["ok"], 0)

        resumed = run(["run", job, "-q", "--resume"], np=2)

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(list(f["results/v"][:]), [float(a) for a in range(60)])
            # Each task ran once to its end; a task the stop killed (SIGTERM) has that attempt
            # recorded before it, as interrupted, and counted in /tasks/attempts (issue 35, point 3).
            per_task = {}
            for task, interrupted in zip(f["attempts/task"][:].tolist(), f["attempts/interrupted"][:].tolist()):
                per_task.setdefault(task, []).append(interrupted)
            self.assertEqual(sorted(per_task), list(range(60)))
            for task, n in enumerate(f["tasks/attempts"][:].tolist()):
                self.assertEqual(per_task[task], [1] * (n - 1) + [0], f"task {task}")

    def test_sigusr1_to_rank_1(self):
        self.drain(1, signal.SIGUSR1)

    def test_sigterm_to_rank_0(self):
        self.drain(0, signal.SIGTERM)

    def test_a_drain_before_any_task_finished_is_exit_4_naming_the_task(self):
        # Issue 35, point 1: the run a Slurm element would requeue forever. Each task needs 30 s;
        # the drain gives it 1 s: no task can finish, whatever the run is given next time.
        work = scratch_dir()
        job = write_job(work, LONG_JOB.format(work=work))
        # 2 s: both ranks' tasks are running.
        code, out_text, err = run_and_signal_rank(["run", job, "--progress", "plain"], job, 0, signal.SIGUSR1, after=2)
        said = out_text + err
        self.assertEqual(code, 4, said)
        self.assertIn("long INTERRUPTED", said)
        self.assertRegex(said, r"NO PROGRESS: no task finished in this run; task #\d ran [0-9.]+s and was cut "
                                   r"short by the drain\. Running it again with as little time cannot finish it")
        self.assertEqual(status_json(os.path.join(work, "long.h5"))[1]["pending"], 4)


if __name__ == "__main__":
    unittest.main()
