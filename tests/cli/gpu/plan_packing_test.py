"""plan's GPU packing (issue 26, point 1): per node, each GPU (or MIG instance of a made-up split)
with its ranks and the tasks they run at once, the sharing mode and the MPS limits. It needs no GPU
and no MPS."""
import json
import unittest

from harness import run, scratch_dir
from jobs import write_job


class PlanPackingTest(unittest.TestCase):
    """plan shows the packing and MIG devices for a made-up node; it needs no GPU and no MPS."""

    def setUp(self):
        self.work = scratch_dir()
        self.job = write_job(self.work, "name: p\ntask: noop\nsweep: {x: [1, 2, 3, 4, 5, 6, 7, 8]}\n"
                                        "gpu_sharing: mps\ngpu_memory: 10G\n")

    def test_packing(self):
        proc = run(["plan", self.job, "--ranks", "4", "--gpus-per-node", "4", "--tasks-per-gpu", "4"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("GPU packing: 4 tasks at once per rank on its device; gpu_sharing: mps", proc.stdout)
        self.assertIn("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=10G", proc.stdout)
        self.assertIn("node0 GPU 3: rank 3 x 4 slots = 4 tasks at once", proc.stdout)

    def test_mig_split(self):
        proc = run(["plan", self.job, "--ranks", "4", "--gpus-per-node", "2", "--mig", "3g.40gb:2", "--json"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        packing = json.loads(proc.stdout)["gpu_packing"]
        self.assertEqual([d["device"] for d in packing["devices"]],
                         ["GPU 0 MIG 3g.40gb device 0", "GPU 0 MIG 3g.40gb device 1",
                          "GPU 1 MIG 3g.40gb device 0", "GPU 1 MIG 3g.40gb device 1"])
        self.assertEqual(packing["devices"][3]["ranks"], [3])

    def test_bad_plan_options(self):
        for args, words in ((["--tasks-per-gpu", "-1"], "--tasks-per-gpu"), (["--mig", "3g"], "--mig '3g'"),
                            (["--mig", "3g.40gb:2"], "give --gpus-per-node")):
            with self.subTest(args=args):
                proc = run(["plan", self.job, "--ranks", "4", *args])
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(words, proc.stderr)


if __name__ == "__main__":
    unittest.main()
