"""The launcher pages that need no cloud and no cluster, as a reader follows them, each in a fresh
folder: docs/launchers/index.md (`submit --to slurm --dry-run` and options a target cannot honour),
mpirun.md (4 ranks, unpinned, two array elements by hand and their merge), aws-batch.md and
google-batch.md (the files for a shared file system, read back by the pages' scripts; refusals and the
image warning), sizes-spot.md (the default sizes and retries of `--dry-run` files; refusals) and
image.md (build-image's refusals of bad options, which stop before anything is built); each quoted
output checked against the real run. Then what the pages say beyond their quotes: the Monte Carlo
prices are the same bits at 4 ranks, unpinned and merged from two elements by hand; `--dry-run`
uploads and submits nothing."""
import os
import unittest

import tutorial_support
from harness import SOURCE_DIR
from jobs import h5py_module

class LauncherPagesTest(unittest.TestCase):
    def follow(self, page, extra_env=None):
        session = tutorial_support.reader(self, extra_env)
        session.run(tutorial_support.docs_page(page))
        return session

    def test_index(self):
        self.follow("launchers/index.md")

    def test_mpirun(self):
        session = self.follow("launchers/mpirun.md")
        h5py = h5py_module()
        prices = {}
        for name in ("pricing", "unbound", "by-hand"):
            with h5py.File(os.path.join(session.folder, "results", name + ".h5"), "r") as f:
                self.assertTrue(bool(f.attrs["complete"]), name)
                self.assertEqual(f["tasks/status"][:].tolist(), [1] * 8, name)
                prices[name] = f["results/price"][:].tolist()
        self.assertEqual(prices["unbound"], prices["pricing"])
        self.assertEqual(prices["by-hand"], prices["pricing"], "the same bits on any rank count and split")

    def test_aws_batch(self):
        self.follow("launchers/aws-batch.md")

    def test_google_batch(self):
        self.follow("launchers/google-batch.md")

    def test_sizes_spot(self):
        # No bucket is reachable: a --dry-run that tried to upload would fail.
        session = self.follow("launchers/sizes-spot.md", {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"})
        self.assertTrue(os.path.isfile(os.path.join(session.folder, "pricing.h5.submit", "aws-batch", "array-job.json")))

    def test_image(self):
        steps = tutorial_support.docs_page("launchers/image.md")
        builds = [s for s in steps if s.kind == "command" and "build-image" in s.text]
        self.assertTrue(builds)
        # Only refusals run here: one the script accepted would start an image build.
        self.assertEqual([s.exit_code for s in builds], [2] * len(builds), "every build-image command must be refused")
        session = tutorial_support.reader(self, {"SHARDRUN": SOURCE_DIR})
        session.run(steps)


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
