"""exec.mode: worker (issue 14): one program per rank fed many tasks on stdin, answering on
SHARDRUN_ANSWER_FD; real mpiexec at 1, 2 and 4 ranks, results read back with h5py."""
import json
import os
import signal
import sys
import unittest

from harness import SOURCE_DIR, processes_with_env, run, run_and_signal_rank, scratch_dir
from jobs import h5py_module, write_job

PROGRAM = os.path.join(SOURCE_DIR, "tests", "cli", "worker_program.py")


def job_text(work, tasks=24, slots=1, retries=0, extra="", env=None):
    env_lines = "".join(f"\n    {k}: '{v}'" for k, v in (env or {}).items())
    return f"""
name: wk
task: exec
sweep: {{a: {{range: [0, {tasks}, 1]}}}}
schedule: dynamic
slots_per_rank: {slots}
retries: {retries}
{extra}
exec:
  mode: worker
  argv: [{sys.executable}, {PROGRAM}]
  env:
    WORKER_STARTS: {work}/starts
    WORKER_SCRIPTS: {os.path.join(SOURCE_DIR, "scripts")}{env_lines}
  results: {{v: float64, vec: [float64, 3], pid: int64}}
output: {{path: {work}/wk.h5}}
"""


def worker_pids(work):
    """Pids of live worker processes of this test's jobs (they carry WORKER_STARTS=<work>/starts)."""
    return processes_with_env(f"WORKER_STARTS={work}/starts")


class WorkerModeTest(unittest.TestCase):
    def tearDown(self):
        for work in getattr(self, "works", []):
            for pid in worker_pids(work):
                os.kill(pid, signal.SIGKILL)

    def start(self, **kwargs):
        work = scratch_dir()
        self.works = getattr(self, "works", []) + [work]
        return work, write_job(work, job_text(work, **kwargs)), os.path.join(work, "wk.h5")

    def starts(self, work):
        with open(os.path.join(work, "starts")) as f:
            return [line.split() for line in f if line.strip()]

    def read(self, out):
        with h5py_module().File(out, "r") as f:
            return {name: f[name][:] for name in ("results/v", "results/vec", "results/pid", "tasks/status",
                                                  "tasks/attempts", "tasks/exit_code")}

    def assert_all_answered(self, out, tasks):
        data = self.read(out)
        self.assertEqual([float(x) for x in data["results/v"]], [2.0 * a for a in range(tasks)])
        self.assertEqual([list(row[:2]) for row in data["results/vec"]], [[a, a + 1] for a in range(tasks)])
        return data

    def every_task_once(self, np, slots):
        work, job, out = self.start(tasks=40, slots=slots)

        proc = run(["run", job, "-q"], np=np)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        data = self.assert_all_answered(out, 40)
        self.assertTrue(all(n == 1 for n in data["tasks/attempts"]))
        starts = self.starts(work)
        # One worker per rank, not one per task: every answer came from those few processes.
        self.assertLessEqual(len(starts), np)
        self.assertTrue(set(int(p) for p in data["results/pid"]) <= {int(pid) for _, pid in starts})
        self.assertEqual(worker_pids(work), [], "a worker outlived its rank")

    def test_every_task_answered_once_1_rank(self):
        self.every_task_once(1, 1)

    def test_every_task_answered_once_2_ranks_2_slots(self):
        self.every_task_once(2, 2)

    def test_every_task_answered_once_4_ranks(self):
        self.every_task_once(4, 1)

    def test_killed_worker_is_restarted_and_its_task_retried(self):
        work, job, out = self.start(tasks=20, retries=1, env={"WORKER_KILL_TASK": 7})

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        data = self.assert_all_answered(out, 20)
        self.assertEqual(int(data["tasks/attempts"][7]), 2)
        self.assertEqual(data["results/vec"][7][2], 2.0)  # answered by the retry
        self.assertEqual(len(self.starts(work)), 3)  # two ranks, one restart

    def test_timed_out_task_is_124_and_the_next_task_runs(self):
        work, job, out = self.start(tasks=12, extra="timeout: 2s\ntimeout_grace: 1s",
                                    env={"WORKER_HANG_TASK": 3})

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        data = self.read(out)
        self.assertEqual(int(data["tasks/exit_code"][3]), 124)
        ok = [i for i in range(12) if i != 3]
        self.assertEqual([float(data["results/v"][i]) for i in ok], [2.0 * i for i in ok])
        status = run(["status", out])
        self.assertIn("hanging on task 3", status.stdout + status.stderr, "status shows the worker's tail")

    def test_malformed_answer_fails_that_task_only(self):
        work, job, out = self.start(tasks=10, env={"WORKER_MALFORMED_TASK": 4})

        proc = run(["run", job, "-q"], np=1)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        status = json.loads(run(["status", out, "--json"]).stdout)
        self.assertEqual((status["ok"], status["failed"]), (9, 1))
        self.assertEqual(len(self.starts(work)), 1, "a malformed answer must not restart the worker")

    def test_stop_drains_and_resume_finishes(self):
        work, job, out = self.start(tasks=60, env={"WORKER_SLEEP": "0.2"})
        code, _, err = run_and_signal_rank(["run", job, "-q"], job, 0, signal.SIGTERM, after=2.5)
        self.assertEqual(code, 3, err)
        self.assertEqual(worker_pids(work), [], "the drain left a worker running")
        status = json.loads(run(["status", out, "--json"]).stdout)
        self.assertGreater(status["pending"], 0)
        self.assertGreater(status["ok"], 0)

        resumed = run(["run", job, "-q", "--resume"], np=2)

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        data = self.assert_all_answered(out, 60)
        self.assertTrue(all(n == 1 for n in data["tasks/attempts"]))

    def test_poison_task_spends_its_retries_and_the_rank_goes_on(self):
        # Issue 35, point 4: three deaths in a row on one task are its 3 attempts, not the rank's end.
        work, job, out = self.start(tasks=10, retries=2, env={"WORKER_POISON_TASK": 2})

        proc = run(["run", job, "-q"], np=1)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        data = self.read(out)
        self.assertEqual(list(data["tasks/status"]), [1, 1, 2] + [1] * 7)
        self.assertEqual(int(data["tasks/attempts"][2]), 3)
        self.assertEqual(int(data["tasks/exit_code"][2]), 128 + signal.SIGKILL)
        ok = [i for i in range(10) if i != 2]
        self.assertEqual([float(data["results/v"][i]) for i in ok], [2.0 * i for i in ok])
        self.assertEqual(len(self.starts(work)), 4, "one worker, then a fresh one after each of the 3 deaths")
        with h5py_module().File(out, "r") as f:
            message = f["tasks/message"][2]
            message = message.decode() if isinstance(message, bytes) else message
        self.assertIn("the exec worker was killed by signal 9 on this task (attempt 3)", message)
        status = run(["status", out])
        self.assertIn("killed by signal 9 on this task (attempt 3)", status.stdout + status.stderr)
        self.assertEqual(json.loads(run(["status", out, "--json"]).stdout)["failed"], 1)
        self.assertEqual(worker_pids(work), [], "a worker outlived its rank")

    def test_a_resumed_poison_task_counts_its_attempts_on(self):
        # Issue 35, point 3: a worker task keeps no stdout.N, so its next run numbers its attempts
        # after those the output recorded: the worker is told attempt 4, 5, 6, as /attempts says.
        work, job, out = self.start(tasks=4, retries=2, env={"WORKER_POISON_TASK": 2})
        self.assertEqual(run(["run", job, "-q"], np=1).returncode, 1)

        resumed = run(["run", job, "-q", "--resume"], np=1)

        self.assertEqual(resumed.returncode, 1, resumed.stderr)
        with h5py_module().File(out, "r") as f:
            rows = [(t, a) for t, a in zip(f["attempts/task"][:].tolist(), f["attempts/attempt"][:].tolist()) if t == 2]
            message = f["tasks/message"][2]
            attempts = int(f["tasks/attempts"][2])
        message = message.decode() if isinstance(message, bytes) else message
        self.assertEqual([a for _, a in rows], [1, 2, 3, 4, 5, 6])
        self.assertEqual(attempts, 6)
        self.assertIn("on this task (attempt 6)", message)

    def test_poison_task_beside_another_slot_spares_its_tasks(self):
        # Tasks in flight beside the poison task lose at most the first death's attempt: after a
        # death, the tasks it held are sent alone, so the poison task's next deaths take no other.
        work, job, out = self.start(tasks=12, slots=2, retries=2, env={"WORKER_POISON_TASK": 3, "WORKER_SLEEP": "0.3"})

        proc = run(["run", job, "-q"], np=1)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        data = self.read(out)
        self.assertEqual([int(s) for s in data["tasks/status"]], [1, 1, 1, 2] + [1] * 8)
        self.assertEqual(int(data["tasks/attempts"][3]), 3)
        self.assertTrue(all(int(n) <= 2 for i, n in enumerate(data["tasks/attempts"]) if i != 3))
        ok = [i for i in range(12) if i != 3]
        self.assertEqual([float(data["results/v"][i]) for i in ok], [2.0 * i for i in ok])

    def test_too_many_deaths_stop_the_rank(self):
        # Deaths over different tasks are the worker's own fault: task 0 spends its 6 attempts
        # (retries 5), task 1's death is the second over different tasks and stops the rank.
        work, job, out = self.start(tasks=10, retries=5, extra="", env={"WORKER_DIE_ALWAYS": 1})
        with open(job) as f:
            text = f.read().replace("  mode: worker", "  mode: worker\n  worker_restarts: 2")
        with open(job, "w") as f:
            f.write(text)

        proc = run(["run", job, "-q"], np=1)

        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("2 deaths in a row over different tasks", proc.stderr)
        self.assertIn("last task 1", proc.stderr)
        self.assertIn("dying on purpose", proc.stderr)
        self.assertEqual(len(self.starts(work)), 7)
        status = json.loads(run(["status", out, "--json"]).stdout)
        self.assertEqual((status["failed"], status["ok"]), (1, 0), "task 0 failed; the rank stopped on task 1")

    def test_no_ready_line_in_time_is_a_clear_error(self):
        work, job, out = self.start(tasks=4, env={"WORKER_SLOW_START": 30})
        with open(job) as f:
            text = f.read().replace("  mode: worker", "  mode: worker\n  worker_start_timeout: 1s")
        with open(job, "w") as f:
            f.write(text)

        proc = run(["run", job, "-q"], np=1, timeout=60)

        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("exec.worker_start_timeout", proc.stderr)
        self.assertEqual(worker_pids(work), [])


if __name__ == "__main__":
    unittest.main()
