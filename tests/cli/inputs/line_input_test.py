"""Issue 37, points 1 and 2: line-based inputs and ids that travel.

A 10,000-line JSON Lines file is data.input of a worker-mode job at 2 ranks with a `rows` result and
`data.id: id`; the master's /results/item holds the ids (xarray indexes the rows by them), `export
--parquet` writes one row per item with its id, task and results (read back by pandas through
pyarrow), and both equal a single-process computation over the file. The index is built once, beside
the input. CSV (integer ids, int64 coordinates), text lines in task mode (shardrun.records()) and
Parquet (pyarrow in python3 on PATH) run the same way. Bad inputs (a malformed JSON line, a ragged
CSV record, a missing id key, Parquet without pyarrow) are exit 2 with one line naming file:line,
nothing written."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from xarray_check import ensure_xarray  # noqa: E402

ensure_xarray()

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

from harness import SOURCE_DIR, run, scratch_dir, task_stderr  # noqa: E402
from jobs import write_job  # noqa: E402
from line_embed_program import rows  # noqa: E402

LINES = 10000
CHUNK = 700
PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "line_embed_program.py")
PYENV_BIN = os.path.dirname(sys.executable)  # the venv with pandas and pyarrow (scripts/install-deps)
JOB = """\
name: lines
task: exec
data: {{input: {input}, chunk: {chunk}{extra}}}
output: {{path: {output}}}
exec:
  mode: {mode}
  argv: [{python}, {program}]
  results: {{e: [float64, rows, 4], n: int64}}
"""


def sentence(k):
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]
    return " ".join(words[(k * 7 + j * 3) % len(words)] for j in range(1 + k % 9)) + f" #{k}"


class LineInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.jsonl = os.path.join(cls.work, "docs.jsonl")
        with open(cls.jsonl, "w") as f:
            for k in range(LINES):
                f.write(json.dumps({"id": f"doc-{k:05d}", "text": sentence(k), "label": k % 3}) + "\n")
        with open(cls.jsonl) as f:
            cls.records = [json.loads(line) for line in f]
        cls.reference = rows(cls.records)  # one process over the whole file

    def env(self):
        # The job's python3 is the venv's (numpy; pyarrow for Parquet): PATH as a user's activated venv.
        # SHARDRUN_PYTHON: under mpiexec, PATH starts with Open MPI's /usr/bin, whose python3 has no pyarrow.
        return {"SHARDRUN_SOURCE_DIR": SOURCE_DIR, "PATH": PYENV_BIN + ":" + os.environ["PATH"],
                "SHARDRUN_PYTHON": sys.executable}

    def run_job(self, input_path, mode="worker", extra="", np_=2, chunk=CHUNK):
        project = scratch_dir(self)
        output = os.path.join(project, "out.h5")
        job = write_job(project, JOB.format(input=input_path, chunk=chunk, extra=extra, output=output, mode=mode,
                                            python=sys.executable, program=PROGRAM))
        proc = run(["run", job, "-q"], np=np_, env=self.env(), cwd=project)
        return proc, output, job

    def check_ok(self, proc, output):
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(output))

    def test_jsonl_worker_rows_with_ids(self):
        proc, output, _ = self.run_job(self.jsonl, extra=", id: id")

        self.check_ok(proc, output)
        self.assertTrue(os.path.exists(self.jsonl + ".shardrun-index"), "the index is stored beside the input")
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        ids = [r["id"] for r in self.records]
        self.assertEqual([str(v) for v in ds.item.values], ids, "the ids are the item coordinate")
        np.testing.assert_array_equal(ds.e.values, self.reference)
        np.testing.assert_array_equal(ds.e.sel(item="doc-04321").values, self.reference[4321])
        self.assertEqual(int(ds.n.sum()), LINES)
        ds.close()

        parquet = os.path.join(os.path.dirname(output), "out.parquet")
        proc = run(["export", output, "--parquet", parquet], env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        import pyarrow.parquet as pq  # not pd.read_parquet: docs/troubleshooting.md#parquet-abort
        frame = pq.read_table(parquet).to_pandas()
        self.assertEqual(len(frame), LINES)
        self.assertEqual(frame["id"].tolist(), ids)
        self.assertEqual(frame["task"].tolist(), [k // CHUNK for k in range(LINES)])
        self.assertEqual(set(frame["status"]), {"ok"})
        np.testing.assert_array_equal(np.stack(frame["e"].to_numpy()), self.reference)

        # The helper's read() gives the same join.
        sys.path.insert(0, os.path.join(SOURCE_DIR, "scripts", "python"))
        import shardrun
        table = shardrun.read(output)
        self.assertEqual(table["id"].tolist(), ids)
        np.testing.assert_array_equal(np.stack(table["e"].to_numpy()), self.reference)
        self.assertEqual(list(shardrun.read(output, as_xarray=True).item.values[:2]), ids[:2])

    def test_resume_keeps_the_ids(self):
        proc, output, job = self.run_job(self.jsonl, extra=", id: id", np_=1, chunk=2500)
        self.check_ok(proc, output)
        proc = run(["run", job, "-q", "--resume"], env=self.env(), cwd=os.path.dirname(job))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        self.assertEqual([str(v) for v in ds.item.values[-3:]], [r["id"] for r in self.records[-3:]])
        ds.close()

    def test_csv_with_integer_ids(self):
        path = os.path.join(scratch_dir(self), "docs.csv")
        with open(path, "w") as f:
            f.write("key,text\n")
            for k in range(500):
                f.write(f'{1000 + k},"{sentence(k)}, quoted"\n')
        proc, output, _ = self.run_job(path, extra=", id: key", chunk=64)

        self.check_ok(proc, output)
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        self.assertEqual(ds.item.dtype, np.int64)
        self.assertEqual(ds.item.values.tolist(), list(range(1000, 1500)))
        np.testing.assert_array_equal(ds.e.values, rows([{"text": sentence(k) + ", quoted"} for k in range(500)]))
        ds.close()

    def test_text_lines_in_task_mode(self):
        path = os.path.join(scratch_dir(self), "lines.txt")
        lines = [sentence(k) for k in range(300)]
        with open(path, "w") as f:
            f.write("\n".join(lines))  # no newline after the last line: still a record
        proc, output, _ = self.run_job(path, mode="task", chunk=50)

        self.check_ok(proc, output)
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        np.testing.assert_array_equal(ds.e.values, rows(lines))
        ds.close()

    def test_parquet_input(self):
        import pyarrow as pa
        import pyarrow.parquet as pq
        path = os.path.join(scratch_dir(self), "docs.parquet")
        pq.write_table(pa.Table.from_pylist(self.records[:1000]), path)
        proc, output, _ = self.run_job(path, extra=", id: id", chunk=300)

        self.check_ok(proc, output)
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        self.assertEqual([str(v) for v in ds.item.values], [r["id"] for r in self.records[:1000]])
        np.testing.assert_array_equal(ds.e.values, self.reference[:1000])
        ds.close()

    def refused(self, input_path, extra="", env=None):
        project = scratch_dir(self)
        output = os.path.join(project, "out.h5")
        job = write_job(project, JOB.format(input=input_path, chunk=10, extra=extra, output=output, mode="worker",
                                            python=sys.executable, program=PROGRAM))
        proc = run(["run", job, "-q"], env=env or self.env(), cwd=project)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertFalse(os.path.exists(output), "nothing written")
        self.assertFalse(os.path.exists(output + ".shards"), "nothing written")
        return lines[0]

    def test_malformed_json_line_is_bad_input(self):
        path = os.path.join(scratch_dir(self), "bad.jsonl")
        with open(path, "w") as f:
            f.write('{"id": 1, "text": "a"}\n{"id": 2, "text": "b"}\n{"id": 3, "text": "c"\n')
        line = self.refused(path)
        self.assertRegex(line, r"job\.yaml:3:\d+: data\.input: .*bad\.jsonl:3: not valid JSON")

    def test_json_malformed_inside_its_braces(self):
        """The index checks a record's shape only; data.id parses every record (exit 2), a task its own."""
        path = os.path.join(scratch_dir(self), "inside.jsonl")
        with open(path, "w") as f:
            f.write('{"id": "a", "text": "x"}\n{"id": "b", "text": y}\n')
        line = self.refused(path, extra=", id: id")
        self.assertRegex(line, r"job\.yaml:3:\d+: data\.id: .*inside\.jsonl:2: not valid JSON")
        proc, output, _ = self.run_job(path, np_=1, chunk=1)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        import h5py
        with h5py.File(output, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1, 2], "the first record's task ok, the second's failed")
            self.assertIn("inside.jsonl:2:", f["tasks/message"][1].decode())

    def test_ragged_csv_is_bad_input(self):
        path = os.path.join(scratch_dir(self), "bad.csv")
        with open(path, "w") as f:
            f.write("id,text\n1,a\n2,b,extra\n")
        line = self.refused(path)
        self.assertRegex(line, r"data\.input: .*bad\.csv:3: 3 fields where the header has 2")

    def test_missing_id_key_is_bad_input(self):
        path = os.path.join(scratch_dir(self), "noid.jsonl")
        with open(path, "w") as f:
            f.write('{"id": "a", "text": "x"}\n{"text": "y"}\n')
        line = self.refused(path, extra=", id: id")
        self.assertRegex(line, r"job\.yaml:3:\d+: data\.id: .*noid\.jsonl:2: the record has no key 'id'")

    def test_repeated_id_is_bad_input(self):
        """Ids index /results/item: a repeated one would make .sel(item=id) give two rows (trial finding)."""
        for name, text, pattern in [
                ("dup.jsonl", '{"id": "a"}\n{"id": "b"}\n{"id": "a"}\n', r"dup\.jsonl:3: id 'a' repeats the id of line 1"),
                ("dup.csv", "id,text\n7,x\n8,y\n8,z\n", r"dup\.csv:4: id '8' repeats the id of line 3")]:
            path = os.path.join(scratch_dir(self), name)
            with open(path, "w") as f:
                f.write(text)
            line = self.refused(path, extra=", id: id")
            self.assertRegex(line, r"job\.yaml:3:\d+: data\.id: .*" + pattern + "; ids must be unique")

    def test_parquet_without_pyarrow_names_it(self):
        path = os.path.join(scratch_dir(self), "x.parquet")
        with open(path, "wb") as f:
            f.write(b"PAR1")
        # Debian's python3 first on PATH: it has no pyarrow.
        line = self.refused(path, env={"SHARDRUN_SOURCE_DIR": SOURCE_DIR, "PATH": "/usr/bin:" + os.environ["PATH"]})
        self.assertRegex(line, r"data\.input: .*x\.parquet: .*needs the Python package pyarrow")


if __name__ == "__main__":
    unittest.main(verbosity=2)
