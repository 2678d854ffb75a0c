"""The ML quick start of docs/workers.md (issue 24, point 9), run as written from examples/ml/: the PyTorch sweep
with its top 10 and the DDP group sweep, with a real torch on PATH as `python3` (the examples'
argv) and the shardrun package installed beside it (scripts/install-torch). Skipped, and said so,
where no Python here imports torch and shardrun. The third job (embeddings with workers into one
array) is tests/cli/workers/worker_embed_example_test.py."""
import math
import os
import re
import subprocess
import unittest

from harness import SHARDRUN, SOURCE_DIR, clean_env, run, scratch_dir, task_stderr
from jobs import h5py_module

EXAMPLES = os.path.join(SOURCE_DIR, "examples", "ml")


def torch_python():
    """A Python that imports torch and shardrun: $SHARDRUN_TORCH_PYTHON, else scripts/install-torch's venv."""
    for python in filter(None, [os.environ.get("SHARDRUN_TORCH_PYTHON"), "/opt/shardrun-torch/bin/python"]):
        if os.path.exists(python) and subprocess.run([python, "-c", "import torch, numpy, shardrun"],
                                                     capture_output=True).returncode == 0:
            return python
    return None


def mpirun(np, args, env, cwd):
    """`mpirun -np N shardrun ...` as the page types it: by name, not by absolute path (which Open MPI
    takes as --prefix and puts its own bin/ first on the ranks' PATH, hiding the venv's python3)."""
    return subprocess.run(["mpirun", "--oversubscribe", "-np", str(np), SHARDRUN, *args], capture_output=True,
                          text=True, env=clean_env(env), cwd=cwd, timeout=1200)


class MlQuickStartTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.python = torch_python()
        if cls.python is None:
            raise unittest.SkipTest("no Python here imports torch and shardrun (SHARDRUN_TORCH=1 scripts/install-torch "
                                    "makes /opt/shardrun-torch): the ML quick start is NOT tested")
        # The examples' argv says python3: the venv's bin/ first on PATH, as `source bin/activate` does
        # (a symlink elsewhere would not do: Python finds its venv next to the path it was started by).
        bin_dir = os.path.dirname(cls.python)
        if not os.path.exists(os.path.join(bin_dir, "python3")):
            raise AssertionError(f"{bin_dir} has no python3: give SHARDRUN_TORCH_PYTHON as a venv's bin/python")
        # This tree's package first, so the test follows the source, not what the venv was given.
        cls.env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": os.path.join(SOURCE_DIR, "scripts", "python")}

    def run_example(self, np, job, name, work, summary=None):
        """Runs `job` under mpirun -np `np` in `work`; returns its results/<name>.h5 after checking the run."""
        proc = mpirun(np, ["run", job], self.env, work)
        output = os.path.join(work, "results", name)
        self.assertEqual(proc.returncode, 0, proc.stderr + task_stderr(output))
        if summary:
            self.assertIn(summary, proc.stdout + proc.stderr)
        return output

    def test_sweep_top_10(self):
        work = scratch_dir()
        output = self.run_example(2, os.path.join(EXAMPLES, "sweep.yaml"), "ml-sweep.h5", work, "18 ok, 0 failed of 18 tasks")
        table = run(["table", output, "--sort", "val_accuracy", "--desc", "--top", "10"], cwd=work)
        self.assertEqual(table.returncode, 0, table.stderr)
        lines = table.stdout.strip().splitlines()
        self.assertEqual(lines[0].split(), ["task", "hidden", "lr", "seed", "val_accuracy", "final_loss", "status"])
        self.assertEqual(len(lines), 11)
        accuracies = [float(line.split()[4]) for line in lines[1:]]
        self.assertEqual(accuracies, sorted(accuracies, reverse=True))
        h5py = h5py_module()
        with h5py.File(output, "r") as f:
            loss = f["results/loss"][()]
            final = f["results/final_loss"][()]
            accuracy = f["results/val_accuracy"][()]
        self.assertEqual(loss.shape, (18, 6))
        for task in range(18):
            self.assertEqual(loss[task, -1], final[task])        # the curve's last epoch is final_loss
            self.assertLess(loss[task, -1], loss[task, 0])       # and every training learned something
            self.assertTrue(0.25 < accuracy[task] <= 1.0, accuracy[task])
        self.assertGreater(accuracy.max() - accuracy.min(), 0.01)  # the points differ: the sweep means something

    def test_ddp_groups(self):
        work = scratch_dir()
        output = self.run_example(4, os.path.join(EXAMPLES, "ddp.yaml"), "ml-ddp.h5", work, "4 ok, 0 failed of 4 tasks")
        h5py = h5py_module()
        with h5py.File(output, "r") as f:
            world = f["results/world_size"][()]
            loss = f["results/final_loss"][()]
            checksum = f["results/param_checksum"][()]
        self.assertEqual(list(world), [2, 2, 2, 2])
        self.assertTrue(all(math.isfinite(v) for v in loss))
        self.assertEqual(len(set(checksum.tolist())), 4)  # four different trainings

    def test_ddp_members_agree(self):
        """Both members of a group end with the same parameters (DDP averaged their gradients): each
        prints its checksum on its own stdout, which keep_files keeps (the leader's in <id>/, member 1's in
        <id>/member1/)."""
        work = scratch_dir()
        job = os.path.join(work, "ddp.yaml")
        with open(os.path.join(EXAMPLES, "ddp.yaml")) as f:
            text = f.read()
        text = text.replace("lr: [0.01, 0.05]", "lr: [0.05]").replace("seed: [0, 1]", "seed: [0]")
        text = text.replace("argv: [python3, train_ddp.py]", f"argv: [python3, {os.path.join(EXAMPLES, 'train_ddp.py')}]")
        text += "  keep_files: true\n"
        with open(job, "w") as f:
            f.write(text)
        output = self.run_example(2, job, "ml-ddp.h5", work)
        sums = []
        for folder in ("", "member1"):
            path = os.path.join(output + ".tasks", "0", folder, "stdout")
            with open(path) as f:
                sums.append(re.search(r"param_checksum ([-0-9.e+]+)", f.read()).group(1))
        self.assertEqual(sums[0], sums[1])


if __name__ == "__main__":
    unittest.main()
