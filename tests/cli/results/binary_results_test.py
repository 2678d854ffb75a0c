"""Exec results as files (issue 11, point 6) and data-chunk fields as one array over items
(point 4): $SHARDRUN_RESULT_DIR/<field>.npy and $SHARDRUN_RESULT_H5 next to result.json, a
bad file failing only its task, exec.keep_files, and `rows` fields read back by h5py and
xarray as [items, ...] with a short last chunk, in both layouts and after --resume."""
import glob
import os
import sys
import unittest

import numpy as np

from harness import SOURCE_DIR, run, scratch_dir, task_stderr
from jobs import h5py_module, write_job

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "npy-rows")
sys.path.insert(0, EXAMPLE)
import npy_rows  # noqa: E402

PYTHON = "/usr/bin/python3"  # Debian's, with numpy and h5py


def example_job(work, layout="shards"):
    """examples/npy-rows/npy-rows.yaml with absolute paths into `work`."""
    with open(os.path.join(EXAMPLE, "npy-rows.yaml")) as f:
        text = f.read()
    text = text.replace(" npy_rows.py]", " " + os.path.join(EXAMPLE, "npy_rows.py") + "]")
    text = text.replace("[python3, ", f"[{PYTHON}, ")  # the example runs PATH's python3; NumPy is Debian's here
    text = text.replace("output: {path: results/npy-rows.h5}",
                        f"output: {{path: {os.path.join(work, 'npy-rows.h5')}, layout: {layout}}}")
    return write_job(work, text, "npy-rows.yaml")


def program(work, body):
    """A task program for /usr/bin/python3 whose body sees os, json and np."""
    path = os.path.join(work, "task.py")
    with open(path, "w") as f:
        f.write("import json, os, sys\nimport numpy as np\n"
                "task = int(os.environ['SHARDRUN_TASK_ID'])\n"
                "out = os.environ['SHARDRUN_RESULT_DIR']\n" + body)
    return path


def sweep_job(work, script, results, points=4, extra=""):
    return write_job(work, f"""\
        name: files
        task: exec
        sweep: {{p: {list(range(points))}}}
        output: {{path: {work}/out.h5}}
        exec:
          argv: [{PYTHON}, {script}]
          results: {results}
        {extra}""")


def statuses(f):
    return f["tasks/status"][:].tolist()


class ItemRowsTest(unittest.TestCase):
    def check_rows(self, path, items, chunk, ok_tasks=None):
        """results/embedding is [items, 384]: each task's rows at its range (fill for tasks not ok)."""
        expected = npy_rows.embedding(0, items)
        with h5py_module().File(path, "r") as f:
            embedding = f["results/embedding"]
            self.assertEqual(embedding.shape, (items, 384))
            self.assertEqual(embedding.dtype, np.float32)
            self.assertEqual(embedding.attrs["item_chunk"], chunk)
            values = embedding[:]
            starts, ends = f["ranges/start"][:], f["ranges/end"][:]
            self.assertEqual((ends - starts).tolist()[-1], items - chunk * (len(starts) - 1))
            status = statuses(f)
            for t, (start, end) in enumerate(zip(starts, ends)):
                if ok_tasks is None or t in ok_tasks:
                    self.assertEqual(status[t], 1, t)
                    np.testing.assert_array_equal(values[start:end], expected[start:end], err_msg=f"task {t}")
                    self.assertEqual(f["results/row_count"][t], end - start)
                else:
                    self.assertTrue(np.isnan(values[start:end]).all(), f"task {t} holds values")

    def test_example_two_ranks_one_array_over_items(self):
        work = scratch_dir()
        job = example_job(work)

        proc = run(["run", job, "-q"], np=2, cwd=work)

        output = os.path.join(work, "npy-rows.h5")
        self.assertEqual(proc.returncode, 0, proc.stderr + task_stderr(output))
        self.check_rows(output, 2000, 300)
        with h5py_module().File(output, "r") as f:
            self.assertEqual(f["results/row_count"][:].tolist(), [300] * 6 + [200])
            self.assertEqual([d[0].name for d in f["results/embedding"].dims], ["/results/item", "/results/embedding_dim1"])
        # exec.keep_files defaults to false: what the tasks wrote is gone once read.
        left = [p for p in glob.glob(os.path.join(output + ".tasks", "**", "*"), recursive=True)
                if p.endswith((".npy", "result.json", "result.h5"))]
        self.assertEqual(left, [])
        # No padded copy stays behind: the master holds about the [2000, 384] array once.
        self.assertLess(os.path.getsize(output), 1.3 * 2000 * 384 * 4)

    def test_xarray_reads_items_as_a_dimension(self):
        import subprocess
        work = scratch_dir()
        job = example_job(work)
        proc = run(["run", job, "-q", "--set", "data.items=620", "--set", "data.chunk=250"], np=1, cwd=work)
        output = os.path.join(work, "npy-rows.h5")
        self.assertEqual(proc.returncode, 0, proc.stderr + task_stderr(output))
        script = ("import sys, xarray as xr, numpy as np\n"
                  "ds = xr.open_dataset(sys.argv[1], engine='h5netcdf', group='results')\n"
                  "print(ds['embedding'].dims, ds['embedding'].shape, ds['row_count'].dims)\n"
                  "tree = xr.open_datatree(sys.argv[1], engine='h5netcdf')\n"
                  "print(float(tree['results']['embedding'].values[619, 383]))\n")
        python = os.path.join(os.environ.get("SHARDRUN_PYENV", "/opt/shardrun-pyenv"), "bin", "python")
        if not os.access(python, os.X_OK):
            self.fail(f"{python} is missing: run scripts/install-deps (xarray, h5netcdf)")

        seen = subprocess.run([python, "-c", script, output], capture_output=True, text=True, timeout=120)

        self.assertEqual(seen.returncode, 0, seen.stderr[-2000:])
        lines = seen.stdout.splitlines()
        self.assertEqual(lines[0], "('item', 'embedding_dim1') (620, 384) ('task',)")
        self.assertAlmostEqual(float(lines[1]), float(npy_rows.embedding(619, 620)[0, 383]), places=6)

    def test_array_elements_merge_into_one_array(self):
        work = scratch_dir()
        job = example_job(work)
        sets = ["--set", "data.items=620", "--set", "data.chunk=250", "--array-count", "2"]

        for index in ("0", "1"):
            proc = run(["run", job, "-q", "--array-index", index, *sets], cwd=work)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        merged = run(["merge", os.path.join(work, "npy-rows.h5")], cwd=work)

        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.check_rows(os.path.join(work, "npy-rows.h5"), 620, 250)

    def test_short_chunk_failed_task_then_resume_both_layouts(self):
        for layout in ("single", "shards"):
            with self.subTest(layout=layout):
                work = scratch_dir()
                # Task 1 fails on the first run only: the master holds the fill value at its rows.
                wrapper = os.path.join(work, "flaky.py")
                with open(wrapper, "w") as f:
                    f.write("import os, runpy, sys\n"
                            f"if os.environ['SHARDRUN_TASK_ID'] == '1' and not os.path.exists('{work}/fixed'):\n"
                            "    sys.exit('task 1 fails once')\n"
                            f"runpy.run_path('{os.path.join(EXAMPLE, 'npy_rows.py')}', run_name='__main__')\n")
                job = example_job(work, layout)
                with open(job) as f:
                    text = f.read()
                with open(job, "w") as f:
                    f.write(text.replace(os.path.join(EXAMPLE, "npy_rows.py"), wrapper))
                sets = ["--set", "data.items=740", "--set", "data.chunk=250"]  # 250, 250 and 240 rows
                output = os.path.join(work, "npy-rows.h5")

                first = run(["run", job, "-q", *sets], np=2, cwd=work)

                self.assertEqual(first.returncode, 1, first.stderr)
                self.check_rows(output, 740, 250, ok_tasks={0, 2})
                open(os.path.join(work, "fixed"), "w").close()

                second = run(["run", job, "-q", "--resume", *sets], np=2, cwd=work)

                self.assertEqual(second.returncode, 0, second.stderr + task_stderr(output))
                self.check_rows(output, 740, 250)
                if layout == "single":
                    # A finished single file is turned back to padded rows for the sink, and again into items.
                    third = run(["run", job, "-q", "--resume", *sets], np=2, cwd=work)

                    self.assertEqual(third.returncode, 0, third.stderr)
                    self.check_rows(output, 740, 250)


class ResultFilesTest(unittest.TestCase):
    def test_bad_npy_fails_only_its_task(self):
        work = scratch_dir()
        script = program(work, """
block = np.full((4, 3), task, dtype='<f4')
if task == 1: block = block.astype('<f8')
if task == 2: block = block[:3]
if task == 3: block = block.astype('>f4')
if task == 4:
    open(os.path.join(out, 'grid.npy'), 'wb').write(b'\\x93NUMPY\\x02\\x00\\x00\\x00\\x00\\x01{')
    sys.exit(0)
if task == 5: block = np.asfortranarray(block)
np.save(os.path.join(out, 'grid.npy'), block)
""")
        job = sweep_job(work, script, "{grid: [float32, 4, 3]}", points=7)

        proc = run(["run", job, "--progress", "plain"], np=2, cwd=work)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertEqual(statuses(f), [1, 2, 2, 2, 2, 2, 1])
            np.testing.assert_array_equal(f["results/grid"][6], np.full((4, 3), 6, np.float32))
            np.testing.assert_array_equal(f["results/grid"][0], np.zeros((4, 3), np.float32))
        text = proc.stdout
        self.assertIn("grid.npy has dtype '<f8', the field is declared float32 ('<f4')", text)
        self.assertIn("grid.npy has shape (3, 3), the task must write (4, 3)", text)
        self.assertIn("grid.npy is big-endian ('>f4')", text)
        self.assertIn("grid.npy has a 16777216-byte header; at most 65536 is allowed", text)
        self.assertIn("grid.npy is in Fortran order", text)

    def test_hdf5_channel_and_a_field_given_twice(self):
        work = scratch_dir()
        script = program(work, """
import h5py
with h5py.File(os.environ['SHARDRUN_RESULT_H5'], 'w') as f:
    f['spectrum'] = np.arange(5, dtype='>f8') * task
    f['count'] = np.int64(task * 10)
    if task == 2: f['spectrum2'] = np.zeros(2)
if task == 1:
    json.dump({'count': 3}, open(os.environ['SHARDRUN_RESULT'], 'w'))
if task == 3:
    np.save(os.path.join(out, 'count.npy'), np.int64(7))
if task == 2:
    json.dump({'energy': 1.5}, open(os.environ['SHARDRUN_RESULT'], 'w'))
""")
        job = sweep_job(work, script, "{spectrum: [float64, 5], count: int64}", points=4)

        proc = run(["run", job, "--progress", "plain"], np=1, cwd=work)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertEqual(statuses(f), [1, 2, 1, 2])
            np.testing.assert_array_equal(f["results/spectrum"][2], np.arange(5) * 2.0)
            self.assertEqual(f["results/count"][:].tolist()[::2], [0, 20])
        self.assertIn("results field 'count' is given twice: in $SHARDRUN_RESULT and as a file", proc.stdout)
        self.assertIn("results field 'count' is given twice: as count.npy and in $SHARDRUN_RESULT_H5", proc.stdout)

    def test_keep_files_true_keeps_them_false_removes_them(self):
        for keep in (True, False):
            with self.subTest(keep_files=keep):
                work = scratch_dir()
                script = program(work, """
assert os.path.isabs(out) and os.path.isabs(os.environ['SHARDRUN_RESULT_H5'])
np.save(os.path.join(out, 'value.npy'), np.float64(task + 0.5))
json.dump({'other': task}, open(os.environ['SHARDRUN_RESULT'], 'w'))
""")
                job = sweep_job(work, script, "{value: float64, other: int32}", points=3,
                                extra=f"  keep_files: {'true' if keep else 'false'}\n")

                proc = run(["run", job, "-q"], np=1, cwd=work)

                self.assertEqual(proc.returncode, 0, proc.stderr + task_stderr(os.path.join(work, "out.h5")))
                with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
                    self.assertEqual(f["results/value"][:].tolist(), [0.5, 1.5, 2.5])
                for t in range(3):
                    for name in ("value.npy", "result.json"):
                        path = os.path.join(work, "out.h5.tasks", str(t), name)
                        self.assertEqual(os.path.exists(path), keep, path)

    def test_resume_may_switch_keep_files(self):
        work = scratch_dir()
        script = program(work, """
if task == 2 and not os.path.exists(os.path.join(os.path.dirname(out), 'again')):
    open(os.path.join(os.path.dirname(out), 'again'), 'w').close()
    sys.exit(1)
np.save(os.path.join(out, 'value.npy'), np.float64(task))
""")
        job = sweep_job(work, script, "{value: float64}", points=3)
        first = run(["run", job, "-q"], np=1, cwd=work)
        self.assertEqual(first.returncode, 1, first.stderr)

        # keep_files changes no result, so it is not part of the job's identity.
        resumed = run(["run", job, "-q", "--resume", "--set", "exec.keep_files=true"], np=1, cwd=work)

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertEqual(f["results/value"][:].tolist(), [0.0, 1.0, 2.0])
        self.assertTrue(os.path.exists(os.path.join(work, "out.h5.tasks", "2", "value.npy")))


if __name__ == "__main__":
    unittest.main()
