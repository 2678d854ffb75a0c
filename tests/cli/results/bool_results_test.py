"""The bool result type (issue 37, point 7): `converged: bool` and `mask: [bool, 4]` stored as
HDF5 uint8 with the attribute dtype="bool" and no _FillValue, so that h5py reads 0/1 and xarray
reads bool. Task mode (result.json, and the Python helper's .npy/JSON) and worker mode (the
helper's base64 answers), through shards and the master at 2 ranks and through `merge` of a
two-element array job; `table` prints true/false; a value other than true/false fails only its
task with one line naming the field; a task without a result reads false and /tasks/status tells."""
import os
import unittest

from xarray_check import check_results_file, ensure_xarray

ensure_xarray()

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

from harness import SOURCE_DIR, run, scratch_dir, task_stderr  # noqa: E402
from jobs import write_job  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, with NumPy
PACKAGE = os.path.join(SOURCE_DIR, "scripts", "python")
TASKS = 6
BAD = 3  # the task that writes "converged": 2 in test_a_value_other_than_true_or_false_fails_its_task

# The expected values of task t: converged when t is even; mask = the 4 low bits of t.
JSON_WRITER = r'''
import json, os
t = int(os.environ["SHARDRUN_TASK_ID"])
bad = int(os.environ.get("BAD_TASK", "-1"))
value = {"converged": t % 2 == 0, "mask": [bool(t >> k & 1) for k in range(4)]}
if t == bad:
    value["converged"] = 2
open(os.environ["SHARDRUN_RESULT"], "w").write(json.dumps(value))
'''

# With the helper: NumPy bools in task mode (.npy or JSON) and in worker mode (base64 answers).
HELPER_WRITER = r'''
import os
import numpy as np
import shardrun

def record(p):
    t = p["t"]
    shardrun.result(converged=np.bool_(t % 2 == 0), mask=np.array([bool(t >> k & 1) for k in range(4)]))

if os.environ.get("WORKER"):
    for task in shardrun.tasks():
        with task:
            record(shardrun.params())
else:
    record(shardrun.params())
'''


def expected():
    converged = [t % 2 == 0 for t in range(TASKS)]
    mask = [[bool(t >> k & 1) for k in range(4)] for t in range(TASKS)]
    return converged, mask


class BoolResultsTest(unittest.TestCase):
    def job(self, work, writer, extra_env="", mode=""):
        script = os.path.join(work, "writer.py")
        with open(script, "w") as f:
            f.write(writer)
        return write_job(work, f"""
            name: flags
            task: exec
            sweep: {{t: {{range: [0, {TASKS}, 1]}}}}
            retries: 0
            output: {{path: {work}/out.h5}}
            exec:
              argv: [{PYTHON}, {script}]
              {mode}
              env: {{PYTHONPATH: {PACKAGE}{extra_env}}}
              results: {{converged: bool, mask: [bool, 4]}}
            """)

    def check_file(self, path, ok=None):
        """h5py: uint8 0/1 with dtype="bool" and no _FillValue; xarray: bool, True/False as written."""
        ok = set(range(TASKS)) if ok is None else ok
        converged, mask = expected()
        converged = [c if t in ok else False for t, c in enumerate(converged)]
        mask = [m if t in ok else [False] * 4 for t, m in enumerate(mask)]
        with h5py.File(path, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1 if t in ok else 2 for t in range(TASKS)])
            for name, want in (("converged", converged), ("mask", mask)):
                dataset = f["results"][name]
                self.assertEqual(dataset.dtype, np.uint8, name)
                self.assertEqual(dataset.attrs["dtype"], "bool", name)
                self.assertNotIn("_FillValue", dataset.attrs, name)
                self.assertEqual(dataset[:].tolist(), np.array(want, dtype=np.uint8).tolist(), name)
        with xr.open_dataset(path, engine="h5netcdf", group="results") as ds:
            self.assertEqual(ds["converged"].dtype, np.bool_)
            self.assertEqual(ds["mask"].dtype, np.bool_)
            self.assertEqual(ds["converged"].values.tolist(), converged)
            self.assertEqual(ds["mask"].values.tolist(), mask)
        check_results_file(self, path, TASKS)

    def run_job(self, job, work, np_ranks=2, *extra):
        proc = run(["run", job, "-q", *extra], np=np_ranks)
        return proc, os.path.join(work, "out.h5")

    def test_task_mode_json_two_ranks(self):
        work = scratch_dir(self)
        proc, path = self.run_job(self.job(work, JSON_WRITER), work)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(path))
        self.check_file(path)
        # table prints the words, in text and in JSON.
        table = run(["table", path])
        self.assertEqual(table.returncode, 0, table.stderr)
        rows = [line.split() for line in table.stdout.splitlines()]
        header = rows[0]
        column = header.index("converged")
        self.assertEqual([row[column] for row in rows[1:TASKS + 1]], ["true", "false"] * (TASKS // 2))

    def test_task_mode_python_helper(self):
        work = scratch_dir(self)
        proc, path = self.run_job(self.job(work, HELPER_WRITER), work)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(path))
        self.check_file(path)

    def test_worker_mode_python_helper(self):
        work = scratch_dir(self)
        proc, path = self.run_job(self.job(work, HELPER_WRITER, ", WORKER: '1'", "mode: worker"), work)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(path))
        self.check_file(path)

    def test_merge_of_a_two_element_array_job(self):
        work = scratch_dir(self)
        job = self.job(work, JSON_WRITER)
        for index in (0, 1):
            proc, path = self.run_job(job, work, 2, "--array-index", str(index), "--array-count", "2")
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        merge = run(["merge", path])
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.check_file(path)

    def test_a_value_other_than_true_or_false_fails_its_task(self):
        work = scratch_dir(self)
        proc, path = self.run_job(self.job(work, JSON_WRITER, f", BAD_TASK: '{BAD}'"), work)
        self.assertNotEqual(proc.returncode, 0, "a task failed, the run must say so")
        # Only that task failed; its row reads false, /tasks/status tells it apart from a false result.
        self.check_file(path, ok=set(range(TASKS)) - {BAD})
        with h5py.File(path, "r") as f:
            message = f["tasks/message"].asstr()[BAD]
        self.assertNotIn("\n", message)
        self.assertIn("field 'converged': 2 is not true or false", message)


if __name__ == "__main__":
    unittest.main()
