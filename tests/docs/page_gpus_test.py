"""docs/gpus.md as a reader follows it on a machine without a GPU: the routing of a gemm sweep by
gemm's rule and by the job's own (`plan --gpus-per-node 4`), a misspelled rule (exit 2), the sweep run
here with every task on the CPU, the packing of `tasks_per_gpu` under MPS on made-up GPUs and MIG
instances, refusals of `gpu_memory` and `gpu_threads`, `shardrun info` without NVML, and what
`scripts/gpu-bundle` and `scripts/gpu-check` answer where there is no CUDA build and no GPU; each
quoted output checked against the real run. Then what the page says beyond its quotes: /tasks/device
is `cpu` for every task, and gpu-check stopped before writing its report folder."""
import os
import shutil
import sys
import unittest

import tutorial_support
from harness import SOURCE_DIR
from jobs import h5py_module, task_labels


class GpusPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self, {"SHARDRUN": SOURCE_DIR})
        session.run(tutorial_support.docs_page("gpus.md"))
        h5py = h5py_module()
        with h5py.File(os.path.join(session.folder, "results", "gemm-sizes.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 4, "every size ok")
            self.assertEqual(task_labels(f, "device"), ["cpu"] * 4, "no GPU here: all on the CPU")
        self.assertFalse(os.path.exists(os.path.join(session.folder, "gpu-report")), "gpu-check stops at once")
        self.assertFalse(os.path.exists(os.path.join(session.folder, "results", "packed.h5")), "plan runs nothing")


if __name__ == "__main__":
    if shutil.which("nvidia-smi"):
        print("SKIPPED: this machine has nvidia-smi; the page quotes what a machine without a GPU answers")
        sys.exit(tutorial_support.SKIP)
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
