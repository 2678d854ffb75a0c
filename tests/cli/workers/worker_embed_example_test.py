"""examples/embed-worker runs as shipped (exec.mode: worker) with the NumPy stand-in model at
-np 2: results/embedding is one [N, 384] array (a `rows` field; 210 sentences in chunks of 25
leave a short last chunk of 10) that matches the stand-in computed directly."""
import os
import subprocess
import sys
import unittest

import numpy as np

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module

EXAMPLE = os.path.join(SOURCE_DIR, "examples", "embed-worker")
SENTENCES = 210
sys.path.insert(0, EXAMPLE)
import embed_worker  # noqa: E402


class EmbedWorkerExampleTest(unittest.TestCase):
    def test_example_embeds_every_row_once(self):
        work = scratch_dir()
        sentences = os.path.join(work, "sentences.h5")
        subprocess.run([sys.executable, os.path.join(EXAMPLE, "make_sentences.py"), sentences, str(SENTENCES)], check=True,
                       capture_output=True)
        with open(os.path.join(EXAMPLE, "embed-worker.yaml")) as f:
            text = f.read()
        text = text.replace("input: sentences.h5:", f"input: {sentences}:")
        text = text.replace("results/embed-worker.h5", os.path.join(work, "embed.h5"))
        # The example runs PATH's python3; h5py and NumPy are Debian's here: exec.python pins it.
        text = text.replace("[python3, embed_worker.py]", f"[python3, {os.path.join(EXAMPLE, 'embed_worker.py')}]\n  python: /usr/bin/python3")
        job = os.path.join(work, "embed-worker.yaml")
        with open(job, "w") as f:
            f.write(text)

        proc = run(["run", job, "-q"], np=2, cwd=work,
                   env={"EMBED_MODEL": "standin", "EMBED_LOAD_SECONDS": "0.1", "EMBED_ROW_SECONDS": "0"})

        self.assertEqual(proc.returncode, 0, proc.stderr)
        with h5py_module().File(os.path.join(work, "embed.h5"), "r") as f:
            embedding = f["results/embedding"][:]
            self.assertTrue((f["tasks/attempts"][:] == 1).all())
        with h5py_module().File(sentences, "r") as f:
            rows = [t.decode() for t in f["text"][:]]
        self.assertEqual(embedding.shape, (SENTENCES, 384))
        np.testing.assert_allclose(embedding, embed_worker.StandIn(0, 0).encode(rows), rtol=1e-5, atol=1e-6)
        with open(os.path.join(work, "embed.h5.tasks", "worker-rank0.log")) as f:
            self.assertIn("model: NumPy stand-in", f.read())


if __name__ == "__main__":
    unittest.main()
