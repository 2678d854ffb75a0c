"""docs/tutorials/embeddings-from-bucket.md as a reader follows it, with moto's S3 as `my-bucket`: the
dataset made and uploaded with `aws s3 cp`, the worker and the job file (a JSON Lines data.input in the
bucket, data.id, exec.mode worker, a rows result), `plan`, the run under mpirun at 2 ranks, the xarray
lookup by id, `export --parquet` and the pandas search, each quoted output checked against the real run.
Then: the index was stored beside the input in the bucket, and every record's vector is the one embed.py
computes for its text, in the input's order."""
import json
import os
import subprocess
import unittest

import cloud_servers
import tutorial_support
from jobs import h5py_module

RECORDS = 20000


class EmbeddingsFromBucketTutorialTest(unittest.TestCase):
    def setUp(self):
        self.store = cloud_servers.S3(tutorial_support.scratch_dir(self), bucket="my-bucket")
        self.addCleanup(self.store.stop)

    def test_the_page_as_written(self):
        session = tutorial_support.reader(self, self.store.env())
        session.env.pop("AWS_CA_BUNDLE", None)  # rclone 1.60 fails with it (README, "Results in object storage")
        session.run(tutorial_support.page("embeddings-from-bucket"))
        self.assertIn("datasets/reviews.jsonl.shardrun-index", self.store.keys("datasets/"))

        folder = session.cwd
        with open(os.path.join(folder, "reviews.jsonl")) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual(len(records), RECORDS)
        # The reference: embed.py's embed() over every text in one process, with the reader's Python.
        reference = os.path.join(folder, "reference.npy")
        script = ("import json, numpy as np, runpy; "
                  "embed = runpy.run_path('embed.py', run_name='reference')['embed']; "
                  "texts = [json.loads(line)['text'] for line in open('reviews.jsonl')]; "
                  f"np.save({reference!r}, embed(texts))")
        proc = subprocess.run(["python3", "-c", script], cwd=folder, env=session.env, capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        import numpy as np
        h5py = h5py_module()
        with h5py.File(os.path.join(folder, "results", "reviews.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["results/item"].asstr()[:].tolist(), [r["review_id"] for r in records])
            np.testing.assert_array_equal(f["results/embedding"][:], np.load(reference))


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
