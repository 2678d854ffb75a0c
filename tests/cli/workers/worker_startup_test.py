"""Worker start-up (issue 24, point 7): an answer printed on stdout instead of $SHARDRUN_ANSWER_FD
is answered at once with a line naming it (no wait for exec.worker_start_timeout or a task timeout),
and a worker's load is its rank's start-up: each task starts after its worker said ready (the first
task's seconds leave it out), the summary's per-rank startup_seconds holds the load, the master's
/ranks (array_index, rank, startup_seconds) records it and `shardrun report --stats` shows it per lane."""
import glob
import json
import os
import sys
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module, write_job

WORKER = os.path.join(SOURCE_DIR, "tests", "cli", "worker_startup", "startup_worker.py")
LOAD_SECONDS = 2


def job(work, case, extra_env=""):
    return write_job(work, f"""\
        name: startup
        task: exec
        sweep: {{a: {{range: [0, 6, 1]}}}}
        output: {{path: {work}/out.h5}}
        exec:
          mode: worker
          argv: [{sys.executable}, {WORKER}]
          env: {{STARTUP_CASE: {case}{extra_env}}}
          results: {{v: float64}}
        """)


class WorkerStartupTest(unittest.TestCase):
    def test_ready_line_on_stdout_ends_the_rank_at_once_naming_the_fd(self):
        work = scratch_dir()
        # The default exec.worker_start_timeout (600 s) stays: the hint must come long before it.
        proc = run(["run", job(work, "stdout_ready")], np=2, timeout=300)
        text = proc.stdout + proc.stderr
        self.assertNotEqual(proc.returncode, 0, text)
        self.assertIn("wrote its ready line on stdout", text)
        self.assertIn("$SHARDRUN_ANSWER_FD (fd 3)", text)
        self.assertNotIn("worker_start_timeout", text)

    def test_answers_on_stdout_fail_each_task_naming_the_fd(self):
        work = scratch_dir()
        proc = run(["run", job(work, "stdout_answer")], np=2, timeout=300)
        self.assertNotEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            statuses = f["tasks/status"][:].tolist()
            messages = [m.decode() if isinstance(m, bytes) else m for m in f["tasks/message"][:].tolist()]
        self.assertIn(2, statuses)
        for status, message in zip(statuses, messages):
            if status == 2:
                self.assertIn("wrote its answer on stdout", message)
                self.assertIn("$SHARDRUN_ANSWER_FD (fd 3)", message)
                self.assertNotIn("timed out", message)

    def test_load_is_the_ranks_startup_not_the_first_tasks_time(self):
        work = scratch_dir()
        ready_dir = os.path.join(work, "ready")
        os.makedirs(ready_dir)
        path = job(work, "slow_load", f", STARTUP_LOAD: {LOAD_SECONDS}, STARTUP_READY_DIR: {ready_dir}")
        proc = run(["run", path, "--progress", "json"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        summary = [json.loads(line) for line in proc.stdout.splitlines()
                   if line.startswith("{") and '"event":"summary"' in line.replace(" ", "")][-1]
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            starts = f["tasks/start"][:].tolist()
            ends = f["tasks/end"][:].tolist()
            ranks = f["tasks/rank"][:].tolist()
            startup = {(int(a), int(r)): float(t) for a, r, t in
                       zip(f["ranks/array_index"][:], f["ranks/rank"][:], f["ranks/startup_seconds"][:])}
            units = f["ranks/startup_seconds"].attrs["units"]
            units = units.decode() if isinstance(units, bytes) else str(units)
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 6)
        ready = {}
        for name in glob.glob(os.path.join(ready_dir, "*")):
            with open(name) as f:
                ready[int(os.path.basename(name))] = float(f.read())
        self.assertEqual(sorted(ready), [0, 1], "one worker per rank, started once")
        # Each task began after its rank's worker said ready: the load is not in its seconds.
        for start, rank in zip(starts, ranks):
            self.assertGreaterEqual(start, ready[rank])
        by_rank = {r["rank"]: r for r in summary["ranks"]}
        for rank in set(ranks):
            # The worker slept LOAD_SECONDS before its ready line: its rank's start-up holds at least that.
            self.assertGreaterEqual(by_rank[rank]["startup_seconds"], LOAD_SECONDS)
        # The first task of each rank: its seconds (end - start) leave the load out. The tasks answer
        # at once, so anything near LOAD_SECONDS would mean the load was counted in.
        first = {}
        for task, (start, rank) in enumerate(zip(starts, ranks)):
            if rank not in first or start < starts[first[rank]]:
                first[rank] = task
        for rank, task in first.items():
            self.assertLess(ends[task] - starts[task], min(1.0, LOAD_SECONDS), f"first task {task} of rank {rank}")
        # /ranks of the master: one row per rank, its start-up as the summary printed it.
        self.assertEqual(sorted(startup), [(0, 0), (0, 1)])
        for (element, rank), seconds in startup.items():
            self.assertGreaterEqual(seconds, LOAD_SECONDS)
            self.assertAlmostEqual(seconds, by_rank[rank]["startup_seconds"], places=6)
        self.assertEqual(units, "s")
        # `shardrun report` shows it: a start-up per lane in --stats, and in the summary line.
        stats_path = os.path.join(work, "stats.json")
        report = run(["report", os.path.join(work, "out.h5"), "--png", os.path.join(work, "r.png"),
                      "--stats", stats_path])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        with open(stats_path) as f:
            lanes = json.load(f)["lanes"]
        self.assertEqual([lane["label"].split()[0] for lane in lanes], ["r0", "r1"])
        for lane, rank in zip(lanes, (0, 1)):
            self.assertAlmostEqual(lane["startup_seconds"], startup[(0, rank)], places=6)

    def test_a_worker_not_ready_after_30_s_gets_one_progress_note(self):
        # A large model's load: the default exec.worker_start_timeout (600 s) waits it out, and at
        # 30 s the rank says once what it waits for, on stderr and in the worker's log.
        work = scratch_dir()
        ready_dir = os.path.join(work, "ready")
        os.makedirs(ready_dir)
        path = job(work, "slow_load", f", STARTUP_LOAD: 32, STARTUP_READY_DIR: {ready_dir}")
        proc = run(["run", path], np=1, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        notes = [line for line in proc.stderr.splitlines() if "is not ready after 30 s" in line]
        self.assertEqual(len(notes), 1, proc.stderr)
        self.assertIn("still waiting (up to exec.worker_start_timeout, 600 s) for its ready line on "
                      "$SHARDRUN_ANSWER_FD (fd 3)", notes[0])
        log = os.path.join(work, "out.h5.tasks", "worker-rank0.log")
        with open(log, errors="replace") as f:
            self.assertIn("is not ready after 30 s", f.read())

    def test_no_workers_no_ranks_group(self):
        """A run without exec workers records no start-up: its master has no /ranks."""
        work = scratch_dir()
        path = write_job(work, f"""\
            name: plain
            task: exec
            sweep: {{a: [1, 2]}}
            output: {{path: {work}/out.h5}}
            exec:
              argv: [/bin/true]
            """)
        proc = run(["run", path], np=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertNotIn("ranks", f)


if __name__ == "__main__":
    unittest.main()
