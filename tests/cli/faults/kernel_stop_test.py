"""A stop reaches the built-in kernels (issue 39's new-user trial): SIGTERM to a rank, or a
SIGUSR1 drain whose drain_timeout runs out, ends a running heat2d or montecarlo task between its
steps; it is recorded interrupted (pending, its attempt marked interrupted), never ok, and the
job exits 3. And the orphan guard: its command line is its own, not a copy of the rank's, and a
stop signal sent to it reaches its rank.

Each job: four short tasks, then two whose natural length is hours (10^8 heat2d steps, 10^11
Monte Carlo paths); the signal comes once the short ones are committed and a long one runs.
A long task counted ok, or a job that does not end, is the bug."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, clean_env, kill_every_rank, progress_reaches, rank_pid, scratch_dir,
                     status_json)
from jobs import write_job

LENGTHS = {"heat2d": (100, 100_000_000), "montecarlo": (1000, 100_000_000_000)}  # (short, long)
SWEPT = {"heat2d": "steps", "montecarlo": "paths"}
PARAMS = {"heat2d": "{nx: 128, ny: 128}", "montecarlo": "{}"}


def write_kernel_job(work, kind, long=None, drain_timeout="1s"):
    short, long = LENGTHS[kind][0], long or LENGTHS[kind][1]
    values = [short] * 4 + [long] * 2
    return write_job(work, f"""
name: kstop
task: {kind}
params: {PARAMS[kind]}
sweep: {{{SWEPT[kind]}: {values}}}
schedule: dynamic
timeout_grace: 1s
drain_timeout: {drain_timeout}
output: {{path: {work}/kstop.h5}}
""")


def long_task_running(proc, deadline):
    """True once the four short tasks are done and one task runs (rank 0's JSON progress lines)."""
    return progress_reaches(proc, deadline, lambda e: e.get("ok", 0) >= 4 and e.get("running", 0) > 0)


def guard_of(rank):
    """The pid of `rank`'s orphan guard: its child whose comm is shardrun-guard."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                after_name = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        if int(after_name[1]) == rank and comm == "shardrun-guard":
            return int(pid)
    raise AssertionError(f"rank {rank} has no orphan guard")


def ps_args(pid):
    return subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()


class KernelStopTest(unittest.TestCase):
    def signal_while_long_tasks_run(self, kind, sig, target, check_target=None, **job):
        """Runs the job at 2 ranks; once the 4 short tasks are committed and a long one runs,
        sends `sig` to each of target(rank 0's pid); returns (exit code, what it said, output path)."""
        work = scratch_dir()
        job = write_kernel_job(work, kind, **job)
        out = os.path.join(work, "kstop.h5")
        with open(os.path.join(work, "stderr"), "w") as stderr:
            proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "--progress", "json",
                                     "--progress-interval", "0.2"],
                                    stdout=subprocess.PIPE, stderr=stderr, text=True, env=clean_env())
        try:
            rank = rank_pid(job, 0, time.time() + 60)
            self.assertTrue(long_task_running(proc, time.time() + 120),
                            "the short tasks never finished, or no long task started")
            pids = target(rank)
            if check_target:
                check_target(rank, pids)
            for n, pid in enumerate(pids):
                # Apart by 0.3 s: two pending signals of one number would merge into one, and
                # the rank's handler is to tell two arrivals apart.
                time.sleep(0.3 if n else 0)
                os.kill(pid, sig)
            # Far longer than any stop takes, far shorter than the long tasks: no timing is
            # asserted; a job still running then is one the stop never reached.
            try:
                said = proc.communicate(timeout=120)[0]  # the progress lines and the summary, JSON
            except subprocess.TimeoutExpired:
                self.fail(f"{kind}: the job still ran 120 s after {signal.Signals(sig).name}: the stop never reached it")
            with open(os.path.join(work, "stderr")) as f:
                said += f.read()[-2000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
                kill_every_rank(job)  # mpiexec's SIGKILL leaves its ranks running
        return proc.returncode, said, out

    def assert_long_tasks_interrupted(self, code, said, out):
        self.assertEqual(code, 3, said[-3000:])
        # What the files hold (an interrupted run has segments, no master file yet).
        report = status_json(out)[1]
        self.assertEqual(report["ok"], 4, report)
        self.assertEqual(report["pending"], 2, f"a long task ran to its end, or failed: {report}")
        self.assertEqual(report.get("failed", 0), 0, report)
        # What the ranks recorded: the long tasks running when the stop came were cut short
        # (interrupted), none ok or failed.
        summary = [json.loads(line) for line in said.splitlines() if line.startswith("{") and '"stopped"' in line]
        self.assertEqual(len(summary), 1, said[-3000:])
        ranks = summary[0]["ranks"]
        self.assertEqual(sum(r["ok"] for r in ranks), 4, ranks)
        self.assertEqual(sum(r["failed"] for r in ranks), 0, ranks)
        cut = sorted(c["task_id"] for r in ranks for c in r["cut_short"])
        self.assertTrue(cut, "no task was cut short: the stop came between tasks")
        self.assertTrue(set(cut) <= {4, 5}, cut)
        self.assertEqual(sum(r["interrupted"] for r in ranks), len(cut), ranks)

    def test_sigterm_to_a_rank_stops_running_heat2d(self):
        self.assert_long_tasks_interrupted(*self.signal_while_long_tasks_run("heat2d", signal.SIGTERM, lambda r: [r]))

    def test_drain_timeout_running_out_stops_running_montecarlo(self):
        self.assert_long_tasks_interrupted(*self.signal_while_long_tasks_run("montecarlo", signal.SIGUSR1, lambda r: [r]))

    def test_sigusr1_to_the_guard_drains_the_run(self):
        def guard_differs(rank, pids):
            rank_args, guard_args = ps_args(rank), ps_args(pids[0])
            self.assertIn(" run ", rank_args)
            self.assertNotEqual(guard_args, rank_args)
            self.assertTrue(guard_args.startswith("shardrun-guard"), guard_args)
            self.assertNotIn(" run ", guard_args)

        self.assert_long_tasks_interrupted(
            *self.signal_while_long_tasks_run("heat2d", signal.SIGUSR1, lambda r: [guard_of(r)], guard_differs))

    def test_one_sigusr1_to_rank_and_guard_is_one_drain(self):
        # scancel --signal=USR1 reaches every process of the step, the guard too: its copy must
        # not count as a second signal, which would turn the drain into a stop. The long tasks
        # (2 x 10^5 steps, seconds) fit in a drain_timeout of 10 minutes: a drain ends 0, all ok.
        code, said, out = self.signal_while_long_tasks_run(
            "heat2d", signal.SIGUSR1, lambda r: [guard_of(r), r], long=200_000, drain_timeout="600s")
        self.assertEqual(code, 0, said[-3000:])
        report = status_json(out)[1]
        self.assertEqual((report["ok"], report["pending"]), (6, 0), report)


if __name__ == "__main__":
    unittest.main()
