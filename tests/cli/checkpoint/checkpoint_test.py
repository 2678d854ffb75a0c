"""Issue 37, point 3: $SHARDRUN_CHECKPOINT_DIR (shardrun.checkpoint_dir()) is one folder per task,
kept through a retry, a drain (SIGUSR1 with a short drain_timeout), a stop (SIGTERM) and --resume,
so a long task goes on from its last checkpoint instead of starting over; removed once the task
succeeded, unless exec.keep_checkpoints. Real mpiexec, real Python tasks, h5py reads the results."""
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, rank_pid, run, scratch_dir, status_json
from jobs import h5py_module, write_job

PACKAGE = os.path.join(SOURCE_DIR, "scripts", "python")
COUNTER = os.path.join(SOURCE_DIR, "tests", "cli", "checkpoint", "step_counter.py")
PYTHON = "/usr/bin/python3"  # Debian's: h5py for the test, NumPy-free helper for the task


def counter_job(work, steps, extra_env="", extra="", worker=False, tasks=2):
    return write_job(work, f"""\
        name: counter
        task: exec
        sweep: {{a: {list(range(tasks))}}}
        drain_timeout: 1s
        timeout_grace: 1s
        {extra}
        output: {{path: {work}/out.h5}}
        exec:
          argv: [{PYTHON}, {COUNTER}]
          {"mode: worker" if worker else ""}
          env: {{PYTHONPATH: {PACKAGE}, COUNTER_LOG: {work}/starts.log, COUNTER_STEPS: "{steps}"{extra_env}{', COUNTER_WORKER: "1"' if worker else ""}}}
          results: {{steps: int64, resumed_from: int64}}
        """)


def starts(work):
    """[(task, attempt, first step)] in the order the attempts began."""
    with open(os.path.join(work, "starts.log")) as f:
        return [tuple(map(int, line.split())) for line in f if line.strip()]


def checkpoint_step(work, task):
    path = os.path.join(work, "out.h5.tasks", str(task), "checkpoint", "step")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return int(f.read() or 0)


def checkpoint_dirs(work):
    tasks = os.path.join(work, "out.h5.tasks")
    return [d for d in (os.listdir(tasks) if os.path.isdir(tasks) else [])
            if os.path.isdir(os.path.join(tasks, d, "checkpoint"))]


class CheckpointTest(unittest.TestCase):
    def interrupt_then_resume(self, sig, worker=False, np=2):
        work = scratch_dir(self)
        ids = list(range(np))  # one task per rank: all of them run when the signal comes
        job = counter_job(work, steps=40, worker=worker, tasks=np)
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(np), SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            pid = rank_pid(job, 0, time.time() + 30)
            # Signal once every task has saved a few steps: the interrupted attempts have something to keep.
            deadline = time.time() + 60
            while time.time() < deadline and not all((checkpoint_step(work, t) or 0) >= 3 for t in ids):
                time.sleep(0.05)
            os.kill(pid, sig)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        # 3, also for a drain in which no task could finish (40 steps of 0.1 s, 1 s to go): every
        # task cut short had checkpointed in this run, which is progress, so not 4 ("NO PROGRESS",
        # which a requeue script reads as "do not requeue").
        self.assertEqual(proc.returncode, 3, err)
        self.assertNotIn("NO PROGRESS", err)
        saved = {t: checkpoint_step(work, t) for t in ids}
        for t, step in saved.items():
            self.assertIsNotNone(step, f"task {t} kept no checkpoint through the interruption")
            self.assertTrue(3 <= step < 40, saved)
        self.assertEqual(status_json(os.path.join(work, "out.h5"))[1]["pending"], np)

        resumed = run(["run", job, "-q", "--resume"], np=np)

        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["results/steps"][:].tolist(), [40] * np)
            resumed_from = f["results/resumed_from"][:].tolist()
        # Each task went on from at least the step its folder held when the run was interrupted.
        for t in ids:
            self.assertGreaterEqual(resumed_from[t], saved[t], (resumed_from, saved))
        later = [s for s in starts(work) if s[2] > 0]
        self.assertEqual(sorted(s[0] for s in later), ids, starts(work))
        self.assertEqual(checkpoint_dirs(work), [], "a succeeded task's checkpoint folder was left behind")

    def test_sigusr1_drain_then_resume_goes_on_from_the_checkpoint(self):
        self.interrupt_then_resume(signal.SIGUSR1)

    def test_sigterm_then_resume_goes_on_from_the_checkpoint(self):
        self.interrupt_then_resume(signal.SIGTERM)

    def test_worker_mode_drain_then_resume(self):
        self.interrupt_then_resume(signal.SIGUSR1, worker=True)

    def test_one_rank(self):
        self.interrupt_then_resume(signal.SIGUSR1, np=1)

    def retry_goes_on(self, worker):
        work = scratch_dir(self)
        job = counter_job(work, steps=12, extra_env=', COUNTER_STEP_SECONDS: "0.01", COUNTER_FAIL_AT: "5"',
                          extra="retries: 1", worker=worker, tasks=3)
        done = run(["run", job, "-q"], np=2)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        # Every task's first attempt failed at step 5; its retry began there, not at 0.
        self.assertEqual(sorted(starts(work)), [(t, a, 0 if a == 1 else 5) for t in range(3) for a in (1, 2)])
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertEqual(f["results/resumed_from"][:].tolist(), [5, 5, 5])
            self.assertEqual(f["tasks/attempts"][:].tolist(), [2, 2, 2])
        self.assertEqual(checkpoint_dirs(work), [])

    def test_a_retry_goes_on_from_the_checkpoint(self):
        self.retry_goes_on(worker=False)

    def test_a_worker_retry_goes_on_from_the_checkpoint(self):
        self.retry_goes_on(worker=True)

    def test_keep_checkpoints_keeps_the_folder_after_success(self):
        work = scratch_dir(self)
        job = counter_job(work, steps=3, extra_env=', COUNTER_STEP_SECONDS: "0"')
        done = run(["run", job, "-q", "--set", "exec.keep_checkpoints=true"], np=1)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(sorted(checkpoint_dirs(work)), ["0", "1"])
        self.assertEqual([checkpoint_step(work, t) for t in (0, 1)], [3, 3])

    def test_environment_names_the_folder_and_no_task_makes_one_it_does_not_use(self):
        work = scratch_dir(self)
        job = write_job(work, f"""\
            name: env
            task: exec
            sweep: {{a: [0, 1]}}
            output: {{path: {work}/out.h5}}
            exec:
              argv: [sh, -c, 'echo "$SHARDRUN_CHECKPOINT_DIR {{checkpoint_dir}}"']
              keep_files: false
            """)
        done = run(["run", job, "-q"], np=1)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        for t in (0, 1):
            expected = os.path.join(work, "out.h5.tasks", str(t), "checkpoint")
            with open(os.path.join(work, "out.h5.tasks", str(t), "stdout")) as f:
                self.assertEqual(f.read().split(), [expected, expected])
        self.assertEqual(checkpoint_dirs(work), [])


if __name__ == "__main__":
    unittest.main()
