"""The `train` task kind against a NumPy reference (train_reference.py) of the same model, data
and seed: the loss curve of every epoch agrees within 1e-5 (relative), on one rank and on a
group of two."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job
import train_reference

JOB = """
name: train-reference
task: train
params: {features: 16, classes: 3, width: 32, depth: 2, samples: 1024, batch: 128, epochs: 6,
         momentum: 0.9, noise: 1.0, seed: 7}
sweep: {lr: [0.02, 0.1]}
gpus_per_task: GROUP
output: {path: OUT/train.h5}
"""


class TrainReferenceTest(unittest.TestCase):
    def losses(self, group, np_ranks):
        work = scratch_dir()
        job = write_job(work, JOB.replace("GROUP", str(group)).replace("OUT", work))
        proc = run(["run", job, "-q"], np=np_ranks)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        h5py = h5py_module()
        with h5py.File(os.path.join(work, "train.h5"), "r") as f:
            return f["results/loss"][:], f["params/lr"][:]

    def check(self, group, np_ranks):
        losses, rates = self.losses(group, np_ranks)
        for curve, lr in zip(losses, rates):
            expected = train_reference.train(features=16, classes=3, width=32, depth=2, samples=1024, batch=128,
                                             epochs=6, lr=float(lr), momentum=0.9, noise=1.0, seed=7)
            for epoch, (got, want) in enumerate(zip(curve, expected)):
                self.assertAlmostEqual(got / want, 1.0, delta=1e-5,
                                       msg=f"lr {lr} epoch {epoch + 1}: shardrun {got}, NumPy {want}")
            self.assertLess(curve[-1], curve[0])

    def test_one_rank_matches_numpy(self):
        self.check(group=1, np_ranks=1)

    def test_group_of_two_matches_numpy(self):
        self.check(group=2, np_ranks=2)


if __name__ == "__main__":
    unittest.main()
