"""Issue 37, point 4: `shardrun run JOB --task ID` runs that task alone, in the foreground on one
process, as the real run runs it (environment, arguments, result handling), printing its stdout
and one JSON line with its recorded result, into a scratch output (or --output), never the job's
own. The result of `--task 7` equals task 7's row of a full run at -np 2; `merge` of the tasks run
by hand gives their rows; a task the job lacks and a run under mpirun -np 2 are one-line errors."""
import json
import math
import os
import re
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

PROGRAM = r"""
import json, os
a, b = float(os.environ["SHARDRUN_PARAM_A"]), int(os.environ["SHARDRUN_PARAM_B"])
print(f"hello from task {os.environ['SHARDRUN_TASK_ID']} of {os.environ['SHARDRUN_TASK_COUNT']}")
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"v": a * b + 0.1, "curve": [a, b, float("nan")], "count": int(os.environ["SHARDRUN_TASK_COUNT"]),
               "start": int(os.environ["SHARDRUN_RANGE_START"])}, f)
"""


def sweep_job(work):
    with open(os.path.join(work, "task.py"), "w") as f:
        f.write(PROGRAM)
    return write_job(work, f"""\
        name: sweep
        task: exec
        sweep: {{a: [0.5, 1.5, 2.5, 3.5, 4.5], b: [1, 2]}}
        data: {{items: 3, chunk: 3}}
        output: {{path: {work}/full.h5}}
        exec:
          argv: [/usr/bin/python3, task.py]
          results: {{v: float64, curve: [float64, 3], count: int64, start: int64}}
        """)


def row(f, t):
    return {"v": float(f["results/v"][t]), "curve": f["results/curve"][t].tolist(),
            "count": int(f["results/count"][t]), "start": int(f["results/start"][t])}


def plain(results):
    """The printed results with "nan" back as a float, to compare with h5py's."""
    return {k: [float("nan") if x == "nan" else x for x in v] if isinstance(v, list) else v for k, v in results.items()}


def same(test, got, expected):
    test.assertEqual(set(got), set(expected))
    for name in expected:
        a, b = got[name], expected[name]
        if isinstance(b, list):
            test.assertEqual(len(a), len(b), name)
            for x, y in zip(a, b):
                test.assertTrue(x == y or (math.isnan(x) and math.isnan(y)), (name, a, b))
        else:
            test.assertEqual(a, b, name)


class RunTaskTest(unittest.TestCase):
    def test_task_7_gives_the_row_of_a_full_run(self):
        work = scratch_dir(self)
        job = sweep_job(work)

        by_hand = run(["run", job, "--task", "7"])

        self.assertEqual(by_hand.returncode, 0, by_hand.stdout + by_hand.stderr)
        self.assertFalse(os.path.exists(os.path.join(work, "full.h5")), "--task wrote the job's own output")
        lines = by_hand.stdout.splitlines()
        self.assertEqual(lines[0], "hello from task 7 of 10")  # the task's stdout, then its result
        printed = json.loads(lines[-1])
        self.assertEqual((printed["task_id"], printed["status"], printed["attempts"]), (7, "ok", 1))
        scratch = re.search(r"output (\S+) ", by_hand.stderr).group(1)
        self.assertTrue(os.path.dirname(scratch).startswith(os.environ.get("TMPDIR", "/tmp")), scratch)
        self.addCleanup(lambda: __import__("shutil").rmtree(os.path.dirname(scratch), ignore_errors=True))

        full = run(["run", job, "-q"], np=2)
        self.assertEqual(full.returncode, 0, full.stdout + full.stderr)
        with h5py_module().File(os.path.join(work, "full.h5"), "r") as f:
            expected = row(f, 7)
        same(self, plain(printed["results"]), expected)
        self.assertEqual(expected["count"], 10)  # the task saw the job's task count, not its own element's

    def test_several_tasks_into_an_output_then_merge(self):
        work = scratch_dir(self)
        job = sweep_job(work)
        output = os.path.join(work, "by-hand.h5")
        by_hand = run(["run", job, "--task", "7", "--task", "2", "--output", output])
        self.assertEqual(by_hand.returncode, 0, by_hand.stdout + by_hand.stderr)
        printed = {r["task_id"]: r for r in map(json.loads, filter(lambda l: l.startswith("{"), by_hand.stdout.splitlines()))}
        self.assertEqual(sorted(printed), [2, 7])
        merged = run(["merge", output])
        self.assertNotEqual(merged.returncode, 0)  # eight tasks were never run: not complete, and said so
        full = run(["run", job, "-q"], np=2)
        self.assertEqual(full.returncode, 0, full.stderr)
        h5py = h5py_module()
        with h5py.File(output, "r") as got, h5py.File(os.path.join(work, "full.h5"), "r") as f:
            self.assertFalse(bool(got.attrs["complete"]))
            self.assertEqual(got["tasks/status"][:].tolist(), [0, 0, 1, 0, 0, 0, 0, 1, 0, 0])
            for t in (2, 7):
                same(self, row(got, t), row(f, t))
                same(self, plain(printed[t]["results"]), row(f, t))

    def test_a_failing_task_prints_why_and_exits_1(self):
        work = scratch_dir(self)
        job = sweep_job(work)
        with open(os.path.join(work, "task.py"), "a") as f:
            f.write("raise SystemExit('no luck for ' + os.environ['SHARDRUN_TASK_ID'])\n")
        by_hand = run(["run", job, "--task", "3"])
        # A failed task's scratch output stays for the user to read (its path is printed): not for a test.
        scratch = re.search(r"output (\S+) ", by_hand.stderr).group(1)
        self.addCleanup(lambda: __import__("shutil").rmtree(os.path.dirname(scratch), ignore_errors=True))
        self.assertEqual(by_hand.returncode, 1, by_hand.stdout + by_hand.stderr)
        printed = json.loads(by_hand.stdout.splitlines()[-1])
        self.assertEqual(printed["status"], "failed")
        self.assertIn("no luck for 3", printed["message"])

    def test_refusals(self):
        work = scratch_dir(self)
        job = sweep_job(work)
        missing = run(["run", job, "--task", "10"])
        self.assertEqual(missing.returncode, 2)
        self.assertIn("--task 10: the job has 10 tasks (ids 0 to 9)", missing.stderr)
        ranks = run(["run", job, "--task", "1"], np=2)
        self.assertEqual(ranks.returncode, 2, ranks.stderr)
        self.assertIn("--task runs its tasks on one process", ranks.stderr)


if __name__ == "__main__":
    unittest.main()
