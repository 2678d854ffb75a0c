"""Issue 24, point 1: a `rows` result field in exec.mode worker gives one [items, ...] array, as
task mode does. 1000 items in chunks of 280 leave a short last chunk of 160 rows; real mpiexec at
1, 2 and 4 ranks, read back with h5py, row i checked against its index and against task mode's
output of the same job. Answers as base64, as <result_dir>/<field>.npy and as lists; an answer of
the wrong number of rows fails that task only, with a reason naming both shapes."""
import glob
import os
import sys
import unittest

import numpy as np

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module, write_job

PROGRAM = os.path.join(SOURCE_DIR, "tests", "cli", "worker_rows_program.py")
ITEMS, CHUNK, DIM = 1000, 280, 16
LAST = 3  # the short last chunk: rows 840..1000


def job_text(work, mode, env=None, name="rows"):
    env_lines = "".join(f"\n    {k}: '{v}'" for k, v in (env or {}).items())
    return f"""
name: {name}
task: exec
data: {{items: {ITEMS}, chunk: {CHUNK}}}
schedule: dynamic
exec:
  mode: {mode}
  argv: [{sys.executable}, {PROGRAM}]
  env:
    WORKER_SCRIPTS: {os.path.join(SOURCE_DIR, "scripts")}
    ROWS_DIM: '{DIM}'
    ROWS_CHUNK: '{CHUNK}'{env_lines}
  results:
    e: [float32, rows, {DIM}]
    n: int64
output: {{path: {work}/{name}.h5}}
"""


def expected():
    return np.arange(ITEMS, dtype=np.float32)[:, None] + np.arange(DIM, dtype=np.float32)[None, :] / 2


class WorkerRowsTest(unittest.TestCase):
    def run_job(self, mode, np_, env=None, expect=0):
        work = scratch_dir()
        job = write_job(work, job_text(work, mode, env))
        proc = run(["run", job, "-q"], np=np_)
        self.assertEqual(proc.returncode, expect, proc.stderr)
        return os.path.join(work, "rows.h5")

    def read(self, out):
        with h5py_module().File(out, "r") as f:
            return (f["results/e"][:], list(f["results/n"][:]), list(f["tasks/status"][:]),
                    [m.decode() if isinstance(m, bytes) else m for m in f["tasks/message"][:]])

    def check_rows(self, out):
        e, n, status, _ = self.read(out)
        self.assertEqual(e.shape, (ITEMS, DIM))
        self.assertEqual(e.dtype, np.float32)
        np.testing.assert_array_equal(e, expected())
        self.assertEqual(n, [280, 280, 280, 160])
        self.assertEqual(status, [1, 1, 1, 1])
        return e

    def same_as_task_mode(self, np_, env=None):
        worker = self.check_rows(self.run_job("worker", np_, env))
        task = self.check_rows(self.run_job("task", np_))
        np.testing.assert_array_equal(worker, task)

    def test_rows_1_rank(self):
        self.same_as_task_mode(1)

    def test_rows_2_ranks(self):
        self.same_as_task_mode(2)

    def test_rows_4_ranks(self):
        self.same_as_task_mode(4)

    def test_rows_answered_as_npy_files(self):
        out = self.run_job("worker", 2, {"SHARDRUN_ARRAY_TRANSPORT": "npy"})

        self.check_rows(out)
        # Read, then removed: nothing is left behind in the slots' folders or the task folders.
        self.assertEqual(glob.glob(out + ".tasks/**/*.npy", recursive=True), [])

    def test_rows_answered_as_lists(self):
        self.check_rows(self.run_job("worker", 1, {"ROWS_AS_LIST": "1"}))

    def check_wrong_length(self, env, reason):
        out = self.run_job("worker", 1, dict(env, ROWS_WRONG_TASK=LAST), expect=1)

        e, _, status, message = self.read(out)
        self.assertEqual(status, [1, 1, 1, 2])
        self.assertIn("malformed answer: ", message[LAST])
        self.assertIn(reason, message[LAST])
        np.testing.assert_array_equal(e[:840], expected()[:840])
        self.assertTrue(np.isnan(e[840:]).all(), "a failed task's rows hold the fill value")
        return out

    def test_wrong_length_base64_fails_that_task(self):
        self.check_wrong_length({"SHARDRUN_ARRAY_TRANSPORT": "base64"},
                                f"results field 'e': binary shape [280,{DIM}] is not this task's [160, {DIM}]")

    def test_wrong_length_npy_fails_that_task_and_keeps_the_file(self):
        out = self.check_wrong_length({"SHARDRUN_ARRAY_TRANSPORT": "npy"},
                                      f"results field 'e': e.npy has shape (280, {DIM}), the task must write "
                                      f"(160, {DIM})")
        kept = os.path.join(out + ".tasks", str(LAST), "e.npy")
        self.assertEqual(np.load(kept).shape, (CHUNK, DIM), "the failed task's file is kept for inspection")

    def test_wrong_length_list_fails_that_task(self):
        self.check_wrong_length({"ROWS_AS_LIST": "1"},
                                f"results field 'e': 280 rows (shape [280, {DIM}]) is not this task's [160, {DIM}]")


if __name__ == "__main__":
    unittest.main()
