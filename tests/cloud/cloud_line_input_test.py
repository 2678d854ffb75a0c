"""Issue 37, points 1 and 2, in a bucket (moto's S3): a 10,000-line JSON Lines data.input at
s3://.../in/docs.jsonl, embedded in worker mode at 2 ranks with a `rows` result and `data.id`. The
run stages the file once per node, indexes it, and stores the index beside it in the bucket
(in/docs.jsonl.shardrun-index); xarray reads the rows indexed by the ids, and `export --parquet`
gives the same rows by id, both equal to a single-process computation. A later `plan` reads only
that index: no rclone call copies the input, the store's log shows no GET of it, and nothing lands
in $TMPDIR or the scratch folder. A changed input (another size and time) makes the index stale:
plan counts the new records."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from xarray_check import ensure_xarray  # noqa: E402

ensure_xarray()

import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

import cloud_servers  # noqa: E402
from harness import SOURCE_DIR, run, scratch_dir, task_stderr  # noqa: E402
from jobs import write_job  # noqa: E402
from line_embed_program import rows  # noqa: E402

LINES = 10000
CHUNK = 700
PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli", "line_embed_program.py")
JOB = """\
name: docs
task: exec
data: {{input: "{input}", chunk: {chunk}, id: id}}
output: {{path: "{output}"}}
exec:
  mode: worker
  argv: [{python}, {program}]
  results: {{e: [float64, rows, 4], n: int64}}
"""
WRAPPER = """\
#!/bin/bash
printf '%s\\n' "$*" >> {calls}
exec /usr/bin/rclone "$@"
"""
DOWNLOADS = ("copy ", "copyto ", "sync ", "move ", "moveto ", "cat ")


def write_docs(path, count):
    with open(path, "w") as f:
        for k in range(count):
            f.write(json.dumps({"id": f"doc-{k:05d}", "text": f"record {k} " + "word " * (k % 11)}) + "\n")
    with open(path) as f:
        return [json.loads(line) for line in f]


class CloudLineInputTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.store = cloud_servers.S3(cls.work)
        cls.addClassCleanup(cls.store.stop)
        cls.local = os.path.join(cls.work, "docs.jsonl")
        cls.records = write_docs(cls.local, LINES)
        cls.store.put(cls.local, "in/docs.jsonl")

    def setUp(self):
        self.tmp = scratch_dir(self)
        self.scratch = scratch_dir(self)
        self.calls = os.path.join(scratch_dir(self), "calls")
        self.wrapper = os.path.join(scratch_dir(self), "rclone")
        with open(self.wrapper, "w") as f:
            f.write(WRAPPER.format(calls=self.calls))
        os.chmod(self.wrapper, 0o755)
        self.project = scratch_dir(self)

    def env(self):
        return {**self.store.env(), "TMPDIR": self.tmp, "SHARDRUN_SCRATCH": self.scratch, "SHARDRUN_RCLONE": self.wrapper,
                "SHARDRUN_SOURCE_DIR": SOURCE_DIR, "PATH": os.path.dirname(sys.executable) + ":" + os.environ["PATH"],
                "SHARDRUN_PYTHON": sys.executable}

    def job(self, output):
        return write_job(self.project, JOB.format(input=self.store.url("in/docs.jsonl"), chunk=CHUNK, output=output,
                                                  python=sys.executable, program=PROGRAM))

    def rclone_calls(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return f.read().splitlines()

    def store_log(self):
        self.store.server.log.flush()
        with open(self.store.server.log.name, errors="replace") as f:
            return f.read()

    def plan_items(self):
        """plan's item count, with an empty $TMPDIR and scratch folder of its own."""
        self.tmp, self.scratch = scratch_dir(self), scratch_dir(self)
        proc = run(["plan", self.job(os.path.join(self.project, "out.h5")), "--ranks", "2", "--json"],
                   env=self.env(), cwd=self.project)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return json.loads(proc.stdout)["items"]

    def test_a_missing_id_key_names_the_url_not_the_staged_copy(self):
        # Trial 41a: the line named /tmp/.../shardrun-input/<hash>/docs.jsonl, the node's private copy.
        output = os.path.join(self.project, "out.h5")
        proc = run(["run", self.job(output), "-q", "--set", "data.id=docid"], env=self.env(), cwd=self.project)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(self.store.url("in/docs.jsonl") + ":1: the record has no key 'docid'", lines[0])
        self.assertNotIn("shardrun-input", lines[0])
        self.assertFalse(os.path.exists(output), "nothing written")

    def test_run_then_plan_reads_only_the_index(self):
        output = os.path.join(self.project, "out.h5")
        proc = run(["run", self.job(output), "-q"], np=2, env=self.env(), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(output))
        downloads = [c for c in self.rclone_calls() if c.startswith("copyto ") and c.split()[1].endswith("in/docs.jsonl")]
        self.assertEqual(len(downloads), 1, "two ranks of one node: one download\n" + "\n".join(self.rclone_calls()))
        self.assertIn("in/docs.jsonl.shardrun-index", self.store.keys("in/"), "the index is stored beside the input")
        ds = xr.open_dataset(output, engine="h5netcdf", group="results")
        self.assertEqual([str(v) for v in ds.item.values], [r["id"] for r in self.records])
        reference = rows(self.records)
        np.testing.assert_array_equal(ds.e.values, reference)
        ds.close()
        parquet = os.path.join(self.project, "out.parquet")
        proc = run(["export", output, "--parquet", parquet], env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        import pyarrow.parquet as pq  # not pd.read_parquet: docs/troubleshooting.md#parquet-abort
        frame = pq.read_table(parquet).to_pandas().set_index("id")
        np.testing.assert_array_equal(np.stack(frame.loc[["doc-00007", "doc-09999"], "e"].to_numpy()),
                                      reference[[7, 9999]])

        # A fresh plan: only the index comes out of the bucket.
        os.remove(self.calls)
        log_start = len(self.store_log())
        self.assertEqual(self.plan_items(), LINES)
        calls = self.rclone_calls()
        input_reads = [c for c in calls if c.startswith(DOWNLOADS) and c.split()[-1].endswith("in/docs.jsonl")]
        self.assertEqual(input_reads, [], "plan read the input itself:\n" + "\n".join(calls))
        self.assertTrue([c for c in calls if "docs.jsonl.shardrun-index" in c], "plan read the index:\n" + "\n".join(calls))
        gets = [line for line in self.store_log()[log_start:].splitlines()
                if f"GET /{self.store.bucket}/in/docs.jsonl " in line or f"GET /{self.store.bucket}/in/docs.jsonl?" in line]
        self.assertEqual(gets, [], "the store served the input's bytes")
        for folder in (self.tmp, self.scratch):
            left = [os.path.join(r, n) for r, _, files in os.walk(folder) for n in files]
            self.assertEqual(left, [], "plan left files behind")

    def test_a_changed_input_makes_the_index_stale(self):
        self.assertEqual(self.plan_items(), LINES)  # builds and stores the index when none is there
        self.assertIn("in/docs.jsonl.shardrun-index", self.store.keys("in/"))
        changed = os.path.join(scratch_dir(self), "docs.jsonl")
        write_docs(changed, LINES + 5)
        self.store.put(changed, "in/docs2.jsonl")
        self.store.aws("s3", "cp", self.store.url("in/docs2.jsonl"), self.store.url("in/docs.jsonl"))
        try:
            self.assertEqual(self.plan_items(), LINES + 5)
        finally:
            self.store.put(self.local, "in/docs.jsonl")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)
