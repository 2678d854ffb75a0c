"""SIGTERM to every process of a run at once, as Slurm's scancel sends it to every process of the
step (issue 39's new-user trial: a running element's task was recorded FAILED with exit 143).
The task's own process dies of the signal at the same moment its rank is told to stop, and may
be reaped before the rank's handler has run; the task must still be recorded interrupted
(pending, its attempt marked interrupted, no retry spent), never failed, and the job exits 3
as for a plain stop; --resume then runs it once.

No Slurm here: the test signals each process itself, the tasks' processes FIRST and the ranks
and their guards 0.3 s later. Slurm signals a step's processes one by one, in no fixed order;
sending the tasks' first makes the order the bug needs certain instead of a rare race. Exec
programs and exec workers (their worker dies of the signal); the built-in kernels, which have
no process of their own, with the rank and its guard signalled together."""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, kill_every_rank, processes_with_env,
                     rank_processes, run, scratch_dir, status_json)
from jobs import h5py_module, write_job

TASKS = 6
# retries: 1, so that a signal judged a failure would show as a second attempt started at once.
JOB_HEAD = """
name: everyone
task: exec
sweep: {{a: {{range: [0, {tasks}, 1]}}}}
schedule: dynamic
retries: 1
output: {{path: {work}/everyone.h5}}
exec:
"""
PROGRAM_JOB = JOB_HEAD + """\
  argv: [sh, -c, 'sleep $FXB_SLEEP; echo "{{{{\\"v\\": $SHARDRUN_PARAM_A}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
"""

WORKER = os.path.join(SOURCE_DIR, "tests", "cli", "worker_program.py")
WORKER_JOB = JOB_HEAD + """\
  mode: worker
  argv: [{python}, {program}]
  env:
    WORKER_STARTS: {work}/starts
    WORKER_SCRIPTS: {scripts}
  results: {{v: float64, vec: [float64, 3], pid: int64}}
"""


def guards_of(ranks):
    """The orphan guards of these rank pids (children whose comm is shardrun-guard)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{pid}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if comm == "shardrun-guard" and parent in ranks:
            found.append(int(pid))
    return found


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass  # a task's child that ended with it


def text_of(path):
    """The file's text, "" while it does not exist."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def wait_for(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"never happened within {seconds} s: {what}")


class StopEveryProcessTest(unittest.TestCase):
    def run_and_signal_everyone(self, job, work, task_pids, tasks_started, env):
        """Runs `job` at 2 ranks with `env`; once tasks_started(), SIGTERM to task_pids(), then 0.3 s
        later to every rank and guard. Returns (exit code, stdout: progress and summary as JSON)."""
        with open(os.path.join(work, "stderr"), "w") as stderr:
            proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "--progress", "json"],
                                    stdout=subprocess.PIPE, stderr=stderr, text=True, env=clean_env(env))
        try:
            wait_for(lambda: len(rank_processes(job)) == 2, 60, "both ranks started")
            wait_for(tasks_started, 120, "a task running on each rank")
            ranks = rank_processes(job)
            everyone = ranks + guards_of(ranks)
            signal_all(task_pids(), signal.SIGTERM)
            time.sleep(0.3)
            signal_all(everyone, signal.SIGTERM)
            try:
                said = proc.communicate(timeout=120)[0]
            except subprocess.TimeoutExpired:
                self.fail("the job still ran 120 s after SIGTERM to every process")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
                kill_every_rank(job)
            signal_all(task_pids(), signal.SIGKILL)
        with open(os.path.join(work, "stderr")) as f:
            return proc.returncode, said + f.read()[-3000:]

    def assert_interrupted_not_failed(self, code, said, out):
        self.assertEqual(code, 3, said[-3000:])
        report = status_json(out)[1]
        self.assertEqual(report.get("failed", 0), 0, f"a task killed by the stop's SIGTERM counted failed: {report}")
        self.assertEqual(report["pending"], TASKS, report)
        summary = [json.loads(line) for line in said.splitlines() if line.startswith("{") and '"stopped"' in line]
        self.assertEqual(len(summary), 1, said[-3000:])
        ranks = summary[0]["ranks"]
        self.assertEqual(sum(r["failed"] for r in ranks), 0, ranks)
        self.assertEqual(sum(r["interrupted"] for r in ranks), 2, f"one task cut short per rank: {ranks}")

    def assert_resume_runs_each_once(self, job, out, env, factor):
        """--resume ends 0 with v = factor * a for every task, each run to its end once after its cut-short attempt."""
        resumed = run(["run", job, "-q", "--resume"], np=2, env=env)

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertEqual(list(f["results/v"][:]), [factor * a for a in range(TASKS)])
            per_task = {}
            for task, interrupted, code in zip(f["attempts/task"][:].tolist(), f["attempts/interrupted"][:].tolist(),
                                               f["attempts/exit_code"][:].tolist()):
                per_task.setdefault(task, []).append((interrupted, code))
            # The cut-short attempt is marked interrupted, and no retry was started after it.
            for task, n in enumerate(f["tasks/attempts"][:].tolist()):
                flags = [interrupted for interrupted, _ in per_task[task]]
                self.assertEqual(flags, [1] * (n - 1) + [0], f"task {task}: {per_task[task]}")
                self.assertLessEqual(n, 2, f"task {task} spent a retry on the stop: {per_task[task]}")
            self.assertEqual(sum(1 for attempts in per_task.values() if len(attempts) == 2), 2, per_task)

    def test_exec_program_killed_before_its_rank_hears(self):
        work = scratch_dir(self)
        job = write_job(work, PROGRAM_JOB.format(tasks=TASKS, work=work))
        out = os.path.join(work, "everyone.h5")
        tasks = lambda: processes_with_env(f"SHARDRUN_TASK_DIR={work}")  # noqa: E731
        # sh and its sleep, on each rank.
        code, said = self.run_and_signal_everyone(job, work, tasks, lambda: len(tasks()) >= 4, {"FXB_SLEEP": "60"})

        self.assert_interrupted_not_failed(code, said, out)
        self.assertEqual(tasks(), [], "a task outlived its stopped rank")
        self.assert_resume_runs_each_once(job, out, {"FXB_SLEEP": "0"}, 1.0)

    def test_exec_worker_killed_before_its_rank_hears(self):
        work = scratch_dir(self)
        job = write_job(work, WORKER_JOB.format(tasks=TASKS, work=work, python=sys.executable, program=WORKER,
                                                scripts=os.path.join(SOURCE_DIR, "scripts")))
        out = os.path.join(work, "everyone.h5")
        workers = lambda: processes_with_env(f"WORKER_STARTS={work}/starts")  # noqa: E731

        def task_sent_to_each():
            # The worker writes "task N attempt 1" to its log as it takes a task.
            return all("attempt 1" in text_of(os.path.join(out + ".tasks", f"worker-rank{r}.log")) for r in (0, 1))

        code, said = self.run_and_signal_everyone(job, work, workers, task_sent_to_each, {"WORKER_SLEEP": "60"})

        self.assert_interrupted_not_failed(code, said, out)
        self.assertEqual(workers(), [], "a worker outlived its stopped rank")
        self.assert_resume_runs_each_once(job, out, {"WORKER_SLEEP": "0"}, 2.0)

    def test_kernel_with_rank_and_guard_signalled_together(self):
        # heat2d runs inside the rank: the rank and its guard get the one SIGTERM (0.3 s apart, as
        # scancel reaches them; the guard passes its copy on); it counts once, and the running
        # kernel is cut short, not failed. The run and its checks are kernel_stop_test's.
        from kernel_stop_test import KernelStopTest, guard_of
        code, said, out = KernelStopTest.signal_while_long_tasks_run(self, "heat2d", signal.SIGTERM,
                                                                     lambda rank: [rank, guard_of(rank)])

        KernelStopTest.assert_long_tasks_interrupted(self, code, said, out)

if __name__ == "__main__":
    unittest.main()
