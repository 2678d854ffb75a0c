"""The shardrun Python package (scripts/python, issue 24 point 5): shardrun.params() with the job
file's types and shardrun.result() in task mode and in worker mode, with NumPy values, torch values,
and in a venv with neither (where it is installed with `pip install scripts/python`). The real
shardrun runs the tasks; h5py reads every field back, NaN and ±inf included."""
import math
import os
import shutil
import subprocess
import unittest

import numpy as np

from harness import SOURCE_DIR, run, scratch_dir, task_stderr
from jobs import h5py_module, write_job

PACKAGE = os.path.join(SOURCE_DIR, "scripts", "python")
TASK = os.path.join(SOURCE_DIR, "tests", "cli", "python_helper", "helper_task.py")
NUMPY_PYTHON = "/usr/bin/python3"  # Debian's, with NumPy
LR, EPOCHS, WARM, TAG = [0.5, 0.25], [2, 3], True, "abc"


def torch_python():
    """A Python that imports torch: $SHARDRUN_TORCH_PYTHON, else the first of a few known places."""
    candidates = [os.environ.get("SHARDRUN_TORCH_PYTHON"), "/opt/shardrun-torch/bin/python",  # scripts/install-torch
                  "/opt/shardrun-pyenv/bin/python", NUMPY_PYTHON, shutil.which("python3")]
    for python in filter(None, candidates):
        if os.path.exists(python) and subprocess.run([python, "-c", "import torch, numpy"],
                                                     capture_output=True).returncode == 0:
            return python
    return None


def bare_venv(work):
    """A venv without NumPy or torch, with the package installed the way README says."""
    venv = os.path.join(work, "venv")
    subprocess.run([NUMPY_PYTHON, "-m", "venv", venv], check=True, capture_output=True)
    python = os.path.join(venv, "bin", "python")
    pip = subprocess.run([python, "-m", "pip", "install", "-q", PACKAGE], capture_output=True, text=True)
    if pip.returncode != 0:
        raise AssertionError(f"pip install {PACKAGE} failed: {pip.stderr[-2000:]}")
    return python


def job(work, python, values, worker=False, on_path=True):
    env = {"HELPER_VALUES": values}
    if worker:
        env["HELPER_WORKER"] = "1"
    if on_path:
        env["PYTHONPATH"] = PACKAGE
    env_text = ", ".join(f"{k}: '{v}'" for k, v in env.items())
    return write_job(work, f"""\
        name: helper
        task: exec
        params: {{warm: {str(WARM).lower()}, tag: {TAG}}}
        sweep: {{lr: {LR}, epochs: {EPOCHS}}}
        output: {{path: {work}/out.h5}}
        exec:
          argv: [{python}, {TASK}]
          {"mode: worker" if worker else ""}
          env: {{{env_text}}}
          results:
            val_accuracy: float64
            loss: [float64, 6]
            embedding: [float32, 3, 2]
            steps: int64
        """)


class PythonHelperTest(unittest.TestCase):
    def run_and_check(self, python, values, worker=False, on_path=True, np_ranks=2):
        work = scratch_dir()
        proc = run(["run", job(work, python, values, worker, on_path)], np=np_ranks)
        output = os.path.join(work, "out.h5")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(output))
        with h5py_module().File(output, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 4)
            lrs, epochs = f["params/lr"][:], f["params/epochs"][:]
            self.assertEqual(sorted(zip(lrs.tolist(), epochs.tolist())), sorted((a, b) for a in LR for b in EPOCHS))
            for t, (lr, e) in enumerate(zip(lrs.tolist(), epochs.tolist())):
                self.assertEqual(f["results/val_accuracy"][t], lr * 10 + e)
                self.assertEqual(f["results/steps"][t], e + (1 if WARM else 0) + len(TAG))
                loss = f["results/loss"][t]
                np.testing.assert_array_equal(loss[:3], [lr * (e - k) for k in range(3)])
                self.assertTrue(math.isnan(loss[3]))
                self.assertEqual(loss[4:].tolist(), [math.inf, -math.inf])
                embedding = f["results/embedding"]
                self.assertEqual(embedding.dtype, np.float32)
                np.testing.assert_array_equal(embedding[t], [[lr * e + r + 0.25 * c for c in range(2)] for r in range(3)])

    def test_task_mode_numpy_values(self):
        self.run_and_check(NUMPY_PYTHON, "numpy")

    def test_worker_mode_numpy_values(self):
        self.run_and_check(NUMPY_PYTHON, "numpy", worker=True)

    def test_task_mode_torch_values(self):
        python = torch_python()
        if python is None:
            self.skipTest("no Python here imports torch (set SHARDRUN_TORCH_PYTHON): torch values NOT tested")
        self.run_and_check(python, "torch")

    def test_worker_mode_torch_values(self):
        python = torch_python()
        if python is None:
            self.skipTest("no Python here imports torch (set SHARDRUN_TORCH_PYTHON): torch values NOT tested")
        self.run_and_check(python, "torch", worker=True)

    def test_neither_numpy_nor_torch_pip_installed(self):
        python = bare_venv(scratch_dir())
        self.run_and_check(python, "plain", on_path=False)
        self.run_and_check(python, "plain", worker=True, on_path=False)

    def test_undeclared_field_fails_its_task_naming_it(self):
        work = scratch_dir()
        script = os.path.join(work, "typo.py")
        with open(script, "w") as f:
            f.write("import shardrun\nshardrun.result(val_acuracy=1.0)\n")
        path = write_job(work, f"""\
            name: typo
            task: exec
            sweep: {{p: [1]}}
            output: {{path: {work}/out.h5}}
            exec:
              argv: [{NUMPY_PYTHON}, {script}]
              env: {{PYTHONPATH: {PACKAGE}}}
              results: {{val_accuracy: float64}}
            """)
        proc = run(["run", path], np=1)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("'val_acuracy' not declared in exec.results (declared: val_accuracy)",
                      proc.stdout + proc.stderr + task_stderr(os.path.join(work, "out.h5")))

    def test_a_raising_task_keeps_its_traceback_in_the_worker_log(self):
        # The answer carries one line ("ValueError: ..."); trial 41a found the traceback kept nowhere.
        work = scratch_dir()
        script = os.path.join(work, "worker.py")
        with open(script, "w") as f:
            f.write("import shardrun\n"
                    "def embed(p):\n"
                    "    if p['n'] == 2:\n"
                    "        raise ValueError(f\"bad record {p['n']}\")\n"
                    "    return float(p['n'])\n"
                    "for task in shardrun.tasks():\n"
                    "    with task:\n"
                    "        task.done({'v': embed(task.params)})\n")
        path = write_job(work, f"""\
            name: raising
            task: exec
            sweep: {{n: [1, 2, 3]}}
            output: {{path: {work}/out.h5}}
            exec:
              argv: [{NUMPY_PYTHON}, {script}]
              mode: worker
              env: {{PYTHONPATH: {PACKAGE}}}
              results: {{v: float64}}
            """)
        proc = run(["run", path, "-q"], np=1)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        with h5py_module().File(os.path.join(work, "out.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1, 2, 1])
            self.assertIn("ValueError: bad record 2", f["tasks/message"][1].decode())
        with open(os.path.join(work, "out.h5.tasks", "worker-rank0.log")) as f:
            log = f.read()
        self.assertIn("task 1 failed:", log)
        self.assertIn("Traceback (most recent call last):", log)
        self.assertIn("in embed", log)
        self.assertIn("ValueError: bad record 2", log)


if __name__ == "__main__":
    unittest.main()
