"""No task outlives the rank that started it, and a task ends with its program: kill -9 of a
rank or of mpirun leaves no task process behind (setsid grandchildren included), a timeout
kills a setsid grandchild too, stragglers in a task's process group are not waited for, and a
task inherits no descriptor of its rank's beyond stdin, stdout and stderr (an orphan holding the
rank's MPI sockets or its HDF5 file would outlive the job in their state)."""
import os
import signal
import subprocess
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, clean_env, kill_task_processes, rank_pid, run, scratch_dir,
                     task_processes, wait_for_no_task_processes)
from jobs import write_job

# Each task leaves a setsid grandchild (its own session, outside the task's process group)
# and a plain background child, then waits.
LINGERING = r"""
name: linger
task: exec
sweep: {a: {range: [0, 8, 1]}}
LIMITS
exec:
  argv: [sh, -c, 'setsid sleep 300 & sleep 300 & sleep 300']
output: {path: OUT/linger.h5}
"""


class ProcessLifetimeTest(unittest.TestCase):
    def start(self, timeout="", np=2):
        work = scratch_dir()
        self.addCleanup(kill_task_processes, work)
        job = write_job(work, LINGERING.replace("OUT", work).replace("LIMITS", timeout))
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(np), SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        # Every rank runs a task whose three processes (and the setsid one) are up.
        deadline = time.time() + 30
        while len(task_processes(work)) < 4 * np and time.time() < deadline:
            time.sleep(0.1)
        self.assertGreaterEqual(len(task_processes(work)), 4 * np, "the tasks never started")
        return work, job, proc

    def assert_no_orphans(self, work):
        left = wait_for_no_task_processes(work, 10)
        self.assertEqual(left, [], "task processes outlived their rank: " + ", ".join(
            open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            for pid in left if os.path.exists(f"/proc/{pid}")))

    def test_kill9_of_a_rank_leaves_no_task_running(self):
        work, job, proc = self.start()
        os.kill(rank_pid(job, 1, time.time() + 10), signal.SIGKILL)
        proc.communicate(timeout=60)
        self.assert_no_orphans(work)

    def test_kill9_of_mpirun_leaves_no_task_running(self):
        work, _, proc = self.start()
        proc.kill()
        proc.communicate(timeout=60)
        self.assert_no_orphans(work)

    def test_a_timeout_kills_the_setsid_grandchild_and_does_not_wait_out_the_grace(self):
        # A 60 s grace: waiting for stragglers that ignore SIGTERM would show as a run of a minute.
        work = scratch_dir()
        self.addCleanup(kill_task_processes, work)
        job = write_job(work, f"""
name: straggler
task: exec
timeout: 1s
timeout_grace: 60s
exec:
  argv: [sh, -c, '(trap "" TERM; sleep 300) & setsid sleep 300 & sleep 300']
output: {{path: {work}/straggler.h5}}
""")
        started = time.time()
        result = run(["run", job, "-q"], timeout=120)
        elapsed = time.time() - started
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertLess(elapsed, 30, "the run waited for a straggler that ignores SIGTERM instead of killing it")
        self.assertEqual(task_processes(work), [], "a timed-out task left processes running")

    def test_a_task_inherits_only_stdin_stdout_and_stderr(self):
        # A background child's descriptors are what a task and all it starts inherit. The dynamic
        # loader holds fd 3 for a moment while the child starts, so the task lists them until the
        # list is down to what was inherited; an inherited descriptor stays, and is printed.
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                work = scratch_dir()
                job = write_job(work, f"""
name: fds
task: exec
sweep: {{a: [1, 2, 3, 4]}}
exec:
  argv: [sh, -c, 'sleep 5 & c=$!; for i in $(seq 60); do fds=$(ls /proc/$c/fd | tr "\\n" " ");
    [ "$fds" = "0 1 2 " ] && break; sleep 0.05; done; kill $c; echo $fds']
output: {{path: {work}/fds.h5, layout: {layout}}}
""")
                result = run(["run", job, "-q"], np=2)
                self.assertEqual(result.returncode, 0, result.stderr)
                for task in range(4):
                    with open(os.path.join(work, "fds.h5.tasks", str(task), "stdout")) as f:
                        fds = sorted(int(fd) for fd in f.read().split())
                    self.assertEqual(fds, [0, 1, 2], f"task {task} ({layout}) inherited descriptors {fds}")


if __name__ == "__main__":
    unittest.main()
