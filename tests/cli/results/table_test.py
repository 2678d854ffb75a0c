"""`shardrun table`: a real exec sweep (one failing task) printed as text, CSV (read back by
pandas from /opt/shardrun-pyenv when it exists, else the csv module) and JSON; --sort, --desc,
--top, --where; NaN last; bad expressions and columns are exit 2 with one line."""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()
VENV_PYTHON = "/opt/shardrun-pyenv/bin/python"

# The "trainer": deterministic val_accuracy from the params; fails for one point.
ACCURACY = """
import math
def accuracy(lr, batch, model):
    return round(0.9 - 0.1 * abs(math.log10(lr) + 2) - batch / 1000 + (0.02 if model == "mlp" else 0), 6)
"""
TRAINER = ACCURACY + """
import json, os, sys
lr = float(os.environ["SHARDRUN_PARAM_LR"]); batch = int(os.environ["SHARDRUN_PARAM_BATCH"])
model = os.environ["SHARDRUN_PARAM_MODEL"]
if model != "mlp" and lr == 0.1 and batch == 64:
    sys.exit("diverged")
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"val_accuracy": accuracy(lr, batch, model), "epochs": batch // 8, "curve": [lr, 2 * lr, 3 * lr]}, f)
"""
namespace = {}
exec(ACCURACY, namespace)
accuracy = namespace["accuracy"]

LRS, BATCHES, MODELS = [0.001, 0.01, 0.1], [16, 64], ["mlp", "cnn, v2"]
POINTS = [(lr, b, m) for lr in LRS for b in BATCHES for m in MODELS]  # last axis fastest: task ids
FAILED = POINTS.index((0.1, 64, "cnn, v2"))
COLUMNS = ["task", "lr", "batch", "model", "val_accuracy", "epochs", "status"]  # the sweep's order


def expected_records():
    records = []
    for task, (lr, batch, model) in enumerate(POINTS):
        ok = task != FAILED
        records.append({"task": task, "batch": batch, "lr": lr, "model": model,
                        "val_accuracy": accuracy(lr, batch, model) if ok else None,
                        "epochs": batch // 8 if ok else None, "status": "ok" if ok else "failed"})
    return records


class TableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        with open(os.path.join(cls.work, "trainer.py"), "w") as f:
            f.write(TRAINER)
        job = write_job(cls.work, f"""
            name: hparams
            task: exec
            sweep:
              lr: {json.dumps(LRS)}
              batch: {json.dumps(BATCHES)}
              model: {json.dumps(MODELS)}
            output: {{path: {cls.work}/hp.h5}}
            exec:
              argv: [{sys.executable}, {cls.work}/trainer.py]
              results: {{val_accuracy: float64, epochs: int64, curve: [float32, 3]}}
            """)
        proc = run(["run", job, "-q"], np=2)
        assert proc.returncode == 1, proc.stderr  # one task fails on purpose
        cls.out = f"{cls.work}/hp.h5"

    def table(self, *args, path=None):
        proc = run(["table", path or self.out, *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc.stdout

    def bad(self, *args, needle, path=None):
        proc = run(["table", path or self.out, *args])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(needle, lines[0])
        return lines[0]

    def test_text_top_sorted_descending(self):
        out = self.table("--sort", "val_accuracy", "--desc", "--top", "3")

        self.assertEqual(out,
                         "task    lr  batch  model    val_accuracy  epochs  status\n"
                         "   4  0.01     16  mlp             0.904       2  ok\n"
                         "   5  0.01     16  cnn, v2         0.884       2  ok\n"
                         "   6  0.01     64  mlp             0.856       8  ok\n")

    def test_text_every_task_in_order_with_missing_result(self):
        lines = self.table().splitlines()

        self.assertEqual(lines[0].split(), COLUMNS)
        self.assertEqual(len(lines), 1 + len(POINTS))
        self.assertEqual([int(line.split()[0]) for line in lines[1:]], list(range(len(POINTS))))
        self.assertTrue(lines[1 + FAILED].endswith("-       -  failed"), lines[1 + FAILED])

    def test_csv_round_trips(self):
        out = self.table("--csv")

        if os.path.exists(VENV_PYTHON):
            code = ("import io, json, sys, pandas as pd; d = pd.read_csv(io.StringIO(sys.stdin.read()));"
                    "print(json.dumps({'columns': list(d.columns), 'dtypes': [str(t) for t in d.dtypes],"
                    " 'records': json.loads(d.to_json(orient='records'))}))")
            proc = subprocess.run([VENV_PYTHON, "-c", code], input=out, capture_output=True, text=True)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            got = json.loads(proc.stdout)
            self.assertEqual(got["columns"], COLUMNS)
            self.assertEqual(got["dtypes"], ["int64", "float64", "int64", "object", "float64", "float64", "object"])
            self.assertEqual(got["records"], expected_records())
        else:
            rows = list(csv.DictReader(io.StringIO(out)))
            self.assertEqual(list(rows[0].keys()), COLUMNS)
            for row, want in zip(rows, expected_records()):
                self.assertEqual(row["model"], want["model"])
                self.assertEqual(float(row["lr"]), want["lr"])
                self.assertEqual(float(row["val_accuracy"]) if row["val_accuracy"] else None, want["val_accuracy"])

    def test_json_records(self):
        self.assertEqual(json.loads(self.table("--json")), expected_records())
        self.assertEqual(json.loads(self.table("--json", "--where", "task>100")), [])

    def test_where(self):
        def tasks(expression):
            return [r["task"] for r in json.loads(self.table("--json", "--where", expression))]

        want = [t for t, (lr, b, m) in enumerate(POINTS) if t != FAILED and accuracy(lr, b, m) > 0.8 and m == "mlp"]
        self.assertEqual(tasks("val_accuracy>0.8 and model==mlp"), want)
        self.assertEqual(tasks("status==failed"), [FAILED])
        self.assertEqual(tasks("model == 'cnn, v2' and lr>=0.01 and batch!=16"), [7, FAILED])
        self.assertEqual(tasks("lr==0.01"), [4, 5, 6, 7])
        self.assertEqual(tasks("epochs<=2"), [t for t, p in enumerate(POINTS) if t != FAILED and p[1] == 16])

    def test_sort_text_and_ties_in_task_order(self):
        def tasks(*args):
            return [r["task"] for r in json.loads(self.table("--json", *args))]

        self.assertEqual(tasks("--sort", "model"), [1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10])
        self.assertEqual(tasks("--sort", "batch", "--desc", "--top", "4"), [2, 3, 6, 7])
        self.assertEqual(tasks("--desc", "--top", "2"), [11, 10])
        self.assertEqual(tasks("--sort", "val_accuracy")[-1], FAILED)

    def test_nan_and_missing_last_both_ways(self):
        copy = f"{self.work}/nan.h5"
        shutil.copy(self.out, copy)
        with h5py.File(copy, "r+") as f:
            f["results/val_accuracy"][0] = math.nan

        for args in ([], ["--desc"]):
            records = json.loads(self.table("--json", "--sort", "val_accuracy", *args, path=copy))
            self.assertEqual([r["task"] for r in records[-2:]], [0, FAILED])
            values = [r["val_accuracy"] for r in records[:-2]]
            self.assertEqual(values, sorted(values, reverse=bool(args)))
        self.assertIn(",nan,", self.table("--csv", "--where", "task==0", path=copy))

    def test_csv_whole_floats_stay_floats(self):
        # A float64 field whose values are all whole numbers once printed 14.0 as "14", which
        # pandas.read_csv reads as an int64 column.
        copy = f"{self.work}/whole.h5"
        shutil.copy(self.out, copy)
        with h5py.File(copy, "r+") as f:
            f["results/val_accuracy"][...] = 14.0

        out = self.table("--csv", "--columns", "task,val_accuracy", "--where", "status==ok", path=copy)
        self.assertEqual(out.splitlines()[1], "0,14.0")
        if os.path.exists(VENV_PYTHON):
            code = "import io, sys, pandas as pd; print(pd.read_csv(io.StringIO(sys.stdin.read()))['val_accuracy'].dtype)"
            proc = subprocess.run([VENV_PYTHON, "-c", code], input=out, capture_output=True, text=True)
            self.assertEqual((proc.returncode, proc.stdout.strip()), (0, "float64"), proc.stderr)

    def test_bad_expressions_are_one_line(self):
        allowed = "allowed: NAME OP VALUE joined by 'and'"
        self.bad("--where", "lr=0.01", needle="'=' is not an operator (use ==)")
        self.bad("--where", "lr>0.1 or batch==16", needle="'or' is not allowed here")
        self.bad("--where", "(lr>0.1)", needle="parentheses are not supported")
        self.bad("--where", "lr>", needle="expected a value after 'lr>'")
        self.bad("--where", "", needle="the expression is empty")
        self.bad("--where", "lr>0.1 and", needle=allowed)
        self.bad("--where", "model<b", needle="'model' is a text column; compare it with == or != only")
        self.bad("--where", "lr==abc", needle="'lr' is a number column and 'abc' is not a number")
        self.bad("--where", "val_acc>0.5", needle="no column 'val_acc'; did you mean 'val_accuracy'?")
        self.bad("--sort", "bacth", needle="--sort: ")
        self.bad("--sort", "bacth", needle="did you mean 'batch'?")
        self.bad("--sort", "curve", needle="columns: task, lr, batch, model, val_accuracy, epochs, status")

    def test_unreadable_outputs(self):
        self.bad(path=f"{self.work}/missing.h5", needle="no results file at")
        argv = ["sh", "-c", "echo '{{\"x\": {n}}}' > \"$SHARDRUN_RESULT\""]
        job = write_job(self.work, f"""
            task: exec
            sweep: {{n: [1, 2, 3, 4]}}
            output: {{path: {self.work}/part.h5}}
            exec:
              argv: {json.dumps(argv)}
              results: {{x: float64}}
            """, name="part.yaml")
        proc = run(["run", job, "-q", "--array-index", "0", "--array-count", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)

        line = self.bad(path=f"{self.work}/part.h5", needle="has no master file yet")
        self.assertIn(f"shardrun merge {self.work}/part.h5", line)


class TrainSweepExampleTest(unittest.TestCase):
    """README's "top 10 runs by val_accuracy" of examples/train-sweep.yaml, as one command."""

    def test_top_ten_by_val_accuracy(self):
        work = scratch_dir()
        out = f"{work}/train-sweep.h5"
        job = os.path.join(os.environ.get("SHARDRUN_SOURCE_DIR", "."), "examples", "train-sweep.yaml")
        proc = run(["run", job, "-q", "--set", f"output.path={out}"], np=4)
        self.assertEqual(proc.returncode, 0, proc.stderr)

        proc = run(["table", out, "--sort", "val_accuracy", "--desc", "--top", "10"])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        lines = proc.stdout.splitlines()
        header = lines[0].split()
        self.assertEqual(header[:4], ["task", "lr", "batch", "width"])
        self.assertEqual(header[-1], "status")
        self.assertNotIn("loss", header)  # [task, epoch]: not a scalar
        with h5py.File(out, "r") as f:
            accuracy = f["results/val_accuracy"][:].tolist()
        want = sorted(range(len(accuracy)), key=lambda t: -accuracy[t])[:10]
        self.assertEqual([int(line.split()[0]) for line in lines[1:]], want)
        column = header.index("val_accuracy")
        self.assertEqual([line.split()[column] for line in lines[1:]], [f"{accuracy[t]:.6g}" for t in want])


if __name__ == "__main__":
    unittest.main()
