"""docs/workers.md as a reader follows it, with $SHARDRUN a built clone (tutorial_support.clone): the ML
quick start's folder and its third job (examples/embed-worker with the NumPy stand-in, 2000 sentences at
-np 2), the refused JSON Lines and CSV inputs, and `run --task`, each quoted output checked against the
real run. The first two jobs of the quick start need PyTorch (shown only; ml_quickstart_test runs them
where a Python imports torch).

Then the page's Python fragments, run the way the page says they run, the names a reader supplies
(`train`, `load_model`) given by the test: the helper's block as a task of a sweep (its scalar, list and
NumPy results stored as declared), `shardrun.task()`'s block as a task and inside the worker loop over a
JSON Lines input (the same ranges and records either way), and the worker protocol's block as the worker
of a job (every task answered). The checkpoint recipe needs PyTorch (its note says so)."""
import json
import os
import textwrap
import unittest

import page_snippets
import tutorial_support
from jobs import h5py_module

# What the reader's own code would be, for the fragments that call it.
TRAIN = '''
def train(lr, epochs):
    """A stand-in for the reader's training: a loss curve, an accuracy, a [2, 4] embedding."""
    return [lr / (e + 1) for e in range(epochs)], 1 - lr, np.full((2, 4), lr)
'''
LOAD_MODEL = '''
class Model:
    def score(self, start, end):
        return (end - start) / 10


def load_model():
    return Model()
'''
# Lets the task() fragment show what it read: the range and the records' ids.
SHOW_TASK = '''
shardrun.result(start=start, end=end, count=len(rows), first=int(rows[0]["doc_id"].split("-")[1]))
'''
RECORDS = "".join(json.dumps({"doc_id": f"doc-{k}", "text": f"document {k}"}) + "\n" for k in range(5))


def fragment(steps, section):
    """The one Python block under the heading starting with `section`."""
    blocks = [s for s in page_snippets.section(steps, section) if s.kind == "shown" and s.path == "python"]
    if len(blocks) != 1:
        raise AssertionError(f"{len(blocks)} python blocks under {section!r}, not 1")
    return blocks[0].text


class WorkersPageTest(unittest.TestCase):
    def setUp(self):
        self.steps = tutorial_support.docs_page("workers.md")
        work = tutorial_support.scratch_dir(self)
        os.makedirs(os.path.join(work, "tmp"))
        # $SHARDRUN: the checkout, built; TMPDIR: where `run --task` makes its scratch output.
        checkout = tutorial_support.clone(os.path.join(work, "checkout"))
        self.session = tutorial_support.reader(self, {"SHARDRUN": checkout, "TMPDIR": os.path.join(work, "tmp")})

    def write(self, name, text):
        with open(os.path.join(self.session.cwd, name), "w") as f:
            f.write(text)

    def run_job(self, name, job, program):
        """Writes `program` and a job running it, runs the job at -np 2; returns the output's /results."""
        self.write(f"{name}.py", program)
        self.write(f"{name}.yaml", job.replace("PROGRAM", f"{name}.py") + f"output: {{path: results/{name}.h5}}\n")
        code, printed = self.session.command(f"mpirun -np 2 shardrun run {name}.yaml -q")
        self.assertEqual(code, 0, f"{name}:\n{program}\n" + "\n".join(printed))
        with h5py_module().File(os.path.join(self.session.cwd, "results", f"{name}.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * len(f["tasks/status"]), name)
            return {key: f["results"][key][()] for key in f["results"]}

    def test_the_page_as_written(self):
        self.session.run(self.steps)
        with h5py_module().File(os.path.join(self.session.cwd, "results", "embed-worker.h5"), "r") as f:
            self.assertEqual(f["results/embedding"].shape, (2000, 384))

    def test_the_helpers_block(self):
        results = self.run_job("helper", """name: helper
task: exec
params: {epochs: 3}
sweep: {lr: [0.1, 0.2]}
exec:
  argv: [python3, PROGRAM]
  results: {val_accuracy: float64, loss: [float64, 3], embedding: [float32, 2, 4]}
""", "import numpy as np\n" + TRAIN + fragment(self.steps, "The Python helper"))
        self.assertEqual(results["val_accuracy"].tolist(), [0.9, 0.8])
        self.assertEqual(results["loss"].tolist(), [[0.1, 0.05, 0.1 / 3], [0.2, 0.1, 0.2 / 3]])
        self.assertEqual(results["embedding"].dtype.name, "float32")
        self.assertEqual(results["embedding"].shape, (2, 2, 4))
        self.assertTrue((abs(results["embedding"][1] - 0.2) < 1e-7).all(), "the float64 array, cast to float32")

    def test_the_current_tasks_block(self):
        self.write("records.jsonl", RECORDS)
        job = """name: NAME
task: exec
data: {input: records.jsonl, chunk: 2}
exec:
  MODE
  argv: [python3, PROGRAM]
  results: {start: int64, end: int64, count: int64, first: int64}
"""
        code = fragment(self.steps, "The current task") + SHOW_TASK
        as_task = self.run_job("current-task", job.replace("NAME", "as-task").replace("MODE", "mode: task"),
                               "import shardrun\n" + code)
        in_worker = self.run_job("current-worker", job.replace("NAME", "in-worker").replace("MODE", "mode: worker"),
                                 "import shardrun\nfor task in shardrun.tasks():\n    with task:\n"
                                 + textwrap.indent(code, "        "))
        for results in (as_task, in_worker):
            self.assertEqual(results["start"].tolist(), [0, 2, 4])
            self.assertEqual(results["end"].tolist(), [2, 4, 5])
            self.assertEqual(results["count"].tolist(), [2, 2, 1])
            self.assertEqual(results["first"].tolist(), [0, 2, 4])

    def test_the_worker_protocols_block(self):
        results = self.run_job("protocol", """name: protocol
task: exec
data: {items: 10, chunk: 4}
exec:
  mode: worker
  argv: [python3, PROGRAM]
  results: {score: float64}
""", LOAD_MODEL + fragment(self.steps, "Persistent workers"))
        self.assertEqual(results["score"].tolist(), [0.4, 0.4, 0.2])


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
