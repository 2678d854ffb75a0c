"""Writes the example's input: an HDF5 dataset of UTF-8 sentences, one row per sentence.

    /usr/bin/python3 examples/embed-worker/make_sentences.py results/embed-worker/sentences.h5 2000
"""
import os
import sys

import h5py
import numpy as np

SUBJECTS = ["The cluster", "A rank", "The worker", "Every task", "The scheduler", "An HDF5 file", "The model"]
VERBS = ["embeds", "reads", "writes", "balances", "loads", "answers", "commits"]
OBJECTS = ["a sentence", "two thousand rows", "its chunk", "the results", "a shard", "the journal", "one batch"]


def sentences(count, seed=0):
    rng = np.random.default_rng(seed)
    for i in range(count):
        s, v, o = rng.integers(len(SUBJECTS)), rng.integers(len(VERBS)), rng.integers(len(OBJECTS))
        yield f"{SUBJECTS[s]} {VERBS[v]} {OBJECTS[o]} (row {i})."


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "results/embed-worker/sentences.h5"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with h5py.File(path, "w") as f:
        f.create_dataset("text", data=list(sentences(count)), dtype=h5py.string_dtype("utf-8"))
    print(f"{path}:/text holds {count} sentences")


if __name__ == "__main__":
    main()
