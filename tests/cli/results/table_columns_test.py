"""`shardrun table --columns` (issue 23, points 6 and 7): any /tasks column and the derived
`seconds` beside params and results, read back from a real run (one task failing after its retry,
one failing only its first attempt); start and end as ISO 8601 UTC in text, CSV and JSON; a
/tasks column added later (`message`) shown with no change; an unknown column one line, exit 2;
and `--pivot` ratio columns named for what they divide, from a real sweep."""
import csv
import datetime
import io
import json
import math
import shutil
import sys
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job, task_labels

h5py = h5py_module()

# Task 2 fails both attempts (exit 3); task 1 fails its first attempt only (exit 1), so it has 2 attempts.
SCRIPT = ("sleep 0.0$(( {n} + 1 )); [ {n} = 2 ] && exit 3; [ {n} = 1 ] && [ {attempt} = 1 ] && exit 1; "
          "echo '{{\"v\": {n}}}' > $SHARDRUN_RESULT")


def iso(seconds, digits):
    """What table prints for Unix seconds: ISO 8601 UTC with 3 (text) or 6 (CSV, JSON) decimals."""
    ticks = math.floor(seconds * 10 ** digits + 0.5)  # halves away from zero, as llround does
    whole, fraction = divmod(ticks, 10 ** digits)
    stamp = datetime.datetime.fromtimestamp(whole, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{fraction:0{digits}d}Z"


class TableColumnsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        job = write_job(cls.work, f"""
            name: columns
            task: exec
            sweep: {{n: [0, 1, 2, 3]}}
            retries: 1
            output: {{path: {cls.work}/c.h5}}
            exec:
              argv: [sh, -c, {json.dumps(SCRIPT)}]
              results: {{v: float64}}
            """)
        proc = run(["run", job, "-q"], np=2)
        assert proc.returncode == 1, proc.stderr  # task 2 fails on purpose
        cls.out = f"{cls.work}/c.h5"
        with h5py.File(cls.out, "r") as f:
            cls.stored = {name: f["tasks"][name][:] for name in ("start", "end", "exit_code", "attempts", "rank")}
            cls.stored["host"] = task_labels(f, "host")

    def table(self, *args, path=None):
        proc = run(["table", path or self.out, *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout

    def test_failed_tasks_with_exit_code_attempts_seconds_and_host(self):
        out = self.table("--where", "status==failed", "--columns", "exit_code,attempts,seconds,host")

        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ["task", "exit_code", "attempts", "seconds", "host"])
        self.assertEqual(len(lines), 2, out)
        seconds = self.stored["end"][2] - self.stored["start"][2]
        self.assertEqual(lines[1].split(), ["2", "3", "2", f"{seconds:.6g}", self.stored["host"][2]])

    def test_every_task_column_in_json_with_times_as_iso8601(self):
        records = json.loads(self.table("--json", "--columns", "status,attempts,rank,exit_code,start,end,seconds"))

        self.assertEqual([r["task"] for r in records], [0, 1, 2, 3])
        self.assertEqual([r["attempts"] for r in records], [1, 2, 2, 1])
        self.assertEqual([r["exit_code"] for r in records], [0, 0, 3, 0])
        for task, r in enumerate(records):
            self.assertEqual(r["rank"], int(self.stored["rank"][task]))
            self.assertEqual(r["start"], iso(float(self.stored["start"][task]), 6))
            self.assertEqual(r["end"], iso(float(self.stored["end"][task]), 6))
            self.assertEqual(r["seconds"], float(self.stored["end"][task] - self.stored["start"][task]))

    def test_times_in_text_and_csv(self):
        text = self.table("--columns", "start,end", "--where", "task==1").splitlines()
        rows = list(csv.DictReader(io.StringIO(self.table("--csv", "--columns", "start"))))

        start, end = float(self.stored["start"][1]), float(self.stored["end"][1])
        self.assertEqual(text[1].split(), ["1", iso(start, 3), iso(end, 3)])
        self.assertNotIn("e+09", "\n".join(text))
        self.assertEqual([r["start"] for r in rows], [iso(float(t), 6) for t in self.stored["start"]])

    def test_sort_and_where_on_task_columns(self):
        records = json.loads(self.table("--json", "--columns", "attempts", "--where", "attempts>1", "--sort", "seconds",
                                        "--desc"))

        by_seconds = sorted([1, 2], key=lambda t: -(self.stored["end"][t] - self.stored["start"][t]))
        self.assertEqual([r["task"] for r in records], by_seconds)

    def test_default_columns_are_unchanged(self):
        self.assertEqual(self.table().splitlines()[0].split(), ["task", "n", "v", "status"])

    def test_a_task_column_added_later_is_read_like_the_others(self):
        # /tasks/message (vlen UTF-8, one line per task that did not succeed) as the results
        # format is adding it; written here into a copy so this test does not wait for it.
        copy = f"{self.work}/message.h5"
        shutil.copy(self.out, copy)
        messages = ["", "exit 1 on attempt 1", "exit 3: no such file, «données»", ""]
        with h5py.File(copy, "r+") as f:
            if "message" in f["tasks"]:
                del f["tasks/message"]
            f["tasks"].create_dataset("message", data=messages, dtype=h5py.string_dtype("utf-8"))

        out = self.table("--where", "status==failed", "--columns", "exit_code,attempts,seconds,host,message", path=copy)
        rows = list(csv.DictReader(io.StringIO(self.table("--csv", "--columns", "message", path=copy))))

        self.assertTrue(out.splitlines()[1].endswith("exit 3: no such file, «données»"), out)
        self.assertEqual([r["message"] for r in rows], messages)

    def test_unknown_column_is_one_line_listing_the_allowed_ones(self):
        proc = run(["table", self.out, "--where", "status==failed", "--columns", "exit_code,attempts,bogus"])

        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("--columns", lines[0])
        self.assertIn("no column 'bogus'", lines[0])
        # cpu_time and mem_peak: /tasks columns since issue 35, point 10 (per-task accounting).
        self.assertIn("columns: task, n, v, status, attempts, cpu_time, device, end, exit_code, host, mem_peak, rank, "
                      "start, seconds",
                      lines[0].replace(", message", ""))


class PivotRatioTest(unittest.TestCase):
    """A real sweep n x backend whose results are a rate (gflops) and a time (kernel_seconds)."""

    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        # gflops = n * (2 if fast else 1); kernel_seconds = 1 / gflops: exact in binary for these n.
        script = ("import json, os; n = int(os.environ['SHARDRUN_PARAM_N']); "
                  "g = n * (2 if os.environ['SHARDRUN_PARAM_BACKEND'] == 'fast' else 1); "
                  "json.dump(dict(gflops=g, kernel_seconds=1 / g), open(os.environ['SHARDRUN_RESULT'], 'w'))")
        job = write_job(cls.work, f"""
            name: ratios
            task: exec
            sweep: {{n: [1, 4], backend: [slow, fast]}}
            output: {{path: {cls.work}/p.h5}}
            exec:
              argv: [{sys.executable}, -c, {json.dumps(script)}]
              results: {{gflops: float64, kernel_seconds: float64}}
            """)
        proc = run(["run", job, "-q"], np=2)
        assert proc.returncode == 0, proc.stderr
        cls.out = f"{cls.work}/p.h5"

    def pivot(self, *args):
        proc = run(["table", self.out, "--pivot", "backend", "--csv", *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return list(csv.DictReader(io.StringIO(proc.stdout)))

    def test_a_rate_reads_fast_over_slow(self):
        rows = self.pivot("--value", "gflops")

        self.assertEqual(list(rows[0].keys()), ["n", "slow_gflops", "fast_gflops", "fast/slow"])
        self.assertEqual([float(r["fast/slow"]) for r in rows], [2.0, 2.0])

    def test_a_time_reads_slow_over_fast(self):
        rows = self.pivot("--value", "kernel_seconds")

        self.assertEqual(list(rows[0].keys()), ["n", "slow_kernel_seconds", "fast_kernel_seconds", "slow/fast"])
        self.assertEqual([float(r["slow/fast"]) for r in rows], [2.0, 2.0])

    def test_ratio_option_and_its_errors(self):
        rows = self.pivot("--value", "gflops", "--ratio", "slow/fast")
        bad = run(["table", self.out, "--pivot", "backend", "--value", "gflops", "--ratio", "gpu/cpu"])

        self.assertEqual([float(r["slow/fast"]) for r in rows], [0.5, 0.5])
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertEqual(bad.stdout, "")
        self.assertEqual(bad.stderr.strip().splitlines(),
                         ["shardrun: table: --ratio 'gpu/cpu': give two different values of backend as A/B, one of: "
                          "slow, fast"])


if __name__ == "__main__":
    unittest.main()
