"""Issue 35, point 4: poison rows in worker mode. A rows chunk whose worker dies on it (or answers
failed) is split in halves until its failing rows are found: 3 poison rows among 10,000 in chunks
of 256 give 9,997 results and 3 rows of /attempts/row_failures (read back with h5py), at 1 and 2
ranks, with at most 2*log2(256) extra sub-chunks per poison row; --resume reruns only the chunks
that hold a failed row. Real mpiexec, real worker processes killed with SIGKILL."""
import collections
import json
import math
import os
import signal
import sys
import unittest

import numpy as np

from harness import SOURCE_DIR, processes_with_env, run, scratch_dir
from jobs import h5py_module, write_job

PROGRAM = os.path.join(SOURCE_DIR, "tests", "cli", "worker_rows_program.py")
ITEMS, CHUNK, DIM = 10000, 256, 4
POISON = [300, 5000, 9999]  # chunks 1, 19 and the short last one (39: rows 9984..10000)
TASKS = math.ceil(ITEMS / CHUNK)


def job_text(work, env, layout="shards"):
    env_lines = "".join(f"\n    {k}: '{v}'" for k, v in env.items())
    return f"""
name: poison
task: exec
data: {{items: {ITEMS}, chunk: {CHUNK}}}
schedule: dynamic
retries: 2
exec:
  mode: worker
  argv: [{sys.executable}, {PROGRAM}]
  env:
    WORKER_SCRIPTS: {os.path.join(SOURCE_DIR, "scripts")}
    ROWS_DIM: '{DIM}'
    ROWS_POISON: '{",".join(map(str, POISON))}'
    ROWS_LOG: {work}/ranges{env_lines}
  results:
    e: [float32, rows, {DIM}]
    n: int64
output: {{path: {work}/poison.h5, layout: {layout}}}
"""


def text(value):
    return value.decode() if isinstance(value, bytes) else value


class WorkerPoisonRowsTest(unittest.TestCase):
    def tearDown(self):
        for pid in processes_with_env(f"ROWS_LOG={self.work}/ranges"):
            os.kill(pid, signal.SIGKILL)

    def start(self, env=None, layout="shards"):
        self.work = scratch_dir(self)
        self.job = write_job(self.work, job_text(self.work, env or {}, layout))
        return os.path.join(self.work, "poison.h5")

    def sent_ranges(self):
        """The (task, start, end) of every range the workers were sent, in order; the log is emptied."""
        path = os.path.join(self.work, "ranges")
        with open(path) as f:
            ranges = [tuple(map(int, line.split())) for line in f if line.strip()]
        os.remove(path)
        return ranges

    def check_output(self, out, reason):
        with h5py_module().File(out, "r") as f:
            e = f["results/e"][:]
            status = list(f["tasks/status"][:])
            messages = [text(m) for m in f["tasks/message"][:]]
            failures = f["attempts/row_failures"]
            items = list(failures["item"][:])
            tasks = list(failures["task"][:])
            codes = list(failures["exit_code"][:])
            reasons = [text(r) for r in failures["reason"][:]]
        expected = np.arange(ITEMS, dtype=np.float32)[:, None] + np.arange(DIM, dtype=np.float32)[None, :] / 2
        good = np.ones(ITEMS, dtype=bool)
        good[POISON] = False
        self.assertEqual(e.shape, (ITEMS, DIM))
        np.testing.assert_array_equal(e[good], expected[good])
        self.assertEqual(int(good.sum()), 9997)
        self.assertTrue(np.isnan(e[POISON]).all(), "a failed row holds the fill value")
        self.assertEqual(items, POISON)
        self.assertEqual(tasks, [row // CHUNK for row in POISON])
        for r in reasons:
            self.assertIn(reason, r)
        poison_tasks = sorted({row // CHUNK for row in POISON})
        self.assertEqual([i for i, s in enumerate(status) if s != 1], poison_tasks)
        self.assertTrue(all(status[t] == 2 for t in poison_tasks))
        self.assertIn("1 of its 256 rows failed (row 300: ", messages[1])
        self.assertIn("the other 255 rows' results are written", messages[1])
        self.assertIn("1 of its 16 rows failed (row 9999: ", messages[TASKS - 1])
        return codes

    def check_sends(self, ranges):
        """Every chunk once; a poison chunk split at most 2*log2(chunk) times more per poison row."""
        per_task = collections.Counter(task for task, _, _ in ranges)
        poison_tasks = {row // CHUNK for row in POISON}
        for task in range(TASKS):
            if task not in poison_tasks:
                self.assertEqual(per_task[task], 1, f"task {task} ran more than once")
            else:
                rows = min(CHUNK, ITEMS - task * CHUNK)
                self.assertLessEqual(per_task[task] - 1, 2 * math.ceil(math.log2(rows)), f"task {task}")
                self.assertGreater(per_task[task], 1, f"task {task} was not split")
        # The single poison rows were each sent alone.
        for row in POISON:
            self.assertIn((row // CHUNK, row, row + 1), ranges)

    def killed_rows(self, np_, **job):
        out = self.start(**job)

        proc = run(["run", self.job, "-q"], np=np_)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        codes = self.check_output(out, "the exec worker was killed by signal 9")
        self.assertEqual(codes, [128 + signal.SIGKILL] * 3)
        self.check_sends(self.sent_ranges())
        status = run(["status", out])
        self.assertIn("1 of its 256 rows failed (row 5000", status.stdout + status.stderr)
        report = json.loads(run(["status", out, "--json"]).stdout)
        self.assertEqual((report["ok"], report["failed"], report["pending"]), (TASKS - 3, 3, 0))
        self.assertEqual(run(["table", out]).returncode, 0, "table reads the output")
        self.assertEqual(processes_with_env(f"ROWS_LOG={self.work}/ranges"), [], "a worker outlived its rank")
        return out

    def test_killed_rows_1_rank(self):
        self.killed_rows(1)

    def test_killed_rows_2_ranks(self):
        self.killed_rows(2)

    def test_killed_rows_2_ranks_single_layout(self):
        self.killed_rows(2, layout="single")

    def test_rows_answered_failed_are_found_too(self):
        out = self.start({"ROWS_POISON_RAISES": "1"})

        proc = run(["run", self.job, "-q"], np=2)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(self.check_output(out, "poison row in"), [1, 1, 1])
        self.check_sends(self.sent_ranges())

    def test_resume_reruns_only_the_chunks_with_failed_rows(self):
        out = self.killed_rows(2)

        resumed = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(resumed.returncode, 1, resumed.stderr)
        ranges = self.sent_ranges()
        poison_tasks = {row // CHUNK for row in POISON}
        self.assertEqual({task for task, _, _ in ranges}, poison_tasks, "a chunk that succeeded ran again")
        self.check_output(out, "the exec worker was killed by signal 9")


if __name__ == "__main__":
    unittest.main()
