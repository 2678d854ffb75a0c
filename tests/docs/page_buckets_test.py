"""docs/launchers/buckets.md as a reader follows it, with moto's S3 as `my-bucket`: `submit --to
aws-batch --workdir .` (which uploads the job files and the folder) and the generated command, a 2-rank
run with its output in the bucket, `status` and `table` of the URL, two array elements run one after
the other and `merge` of the URL, the same job into the GCS emulator as `gs://my-bucket` and its
`status`, and misspelled URLs refused (exit 2); each quoted output checked
against the real run. Then what the page says beyond its quotes: the three masters are in the buckets with
every task ok once, the merge deleted the elements' segments, and the refused URLs wrote nothing
(no local folder named like a scheme)."""
import os
import unittest

import cloud_servers
import tutorial_support
from jobs import h5py_module


class BucketsPageTest(unittest.TestCase):
    def setUp(self):
        self.store = cloud_servers.S3(tutorial_support.scratch_dir(self), bucket="my-bucket")
        self.addCleanup(self.store.stop)
        self.gcs = cloud_servers.GCS(tutorial_support.scratch_dir(self), bucket="my-bucket")
        self.addCleanup(self.gcs.stop)

    def test_the_page_as_written(self):
        session = tutorial_support.reader(self, {**self.store.env(), **self.gcs.env()})
        session.env.pop("AWS_CA_BUNDLE", None)  # rclone 1.60 fails with it (the page, "Credentials")
        session.run(tutorial_support.docs_page("launchers/buckets.md"))
        keys = self.store.keys("runs/")
        self.assertIn("runs/pricing.h5.submit/aws-batch/job.yaml", keys)
        self.assertIn("runs/pricing.h5.submit/workdir/pricing.yaml", keys)
        h5py = h5py_module()
        for name in ("pricing", "by-hand"):
            local = os.path.join(session.folder, name + "-master.h5")
            self.store.get(f"runs/{name}.h5", local)
            with h5py.File(local, "r") as f:
                self.assertTrue(bool(f.attrs["complete"]), name)
                self.assertEqual(f["tasks/status"][:].tolist(), [1] * 8, name)
        local = os.path.join(session.folder, "gcs-master.h5")
        self.gcs.get("runs/pricing.h5", local)
        with h5py.File(local, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 8, "the master in Google Cloud Storage")
        os.remove(local)
        self.assertEqual([k for k in keys if k.startswith("runs/by-hand.h5.shards/")],
                         [f"runs/by-hand.h5.shards/a{i}/{name}" for i in (0, 1) for name in ("element.json", "writer.lock")],
                         "the merge deleted the segments the master holds; the manifests and released claims stay")
        self.assertEqual(sorted(os.listdir(session.folder)),
                         sorted(["pricing.yaml", "pricing.h5.submit", "pricing-master.h5", "by-hand-master.h5"]),
                         "a bucket output and a refused URL write nothing here (no folder named like a scheme)")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
