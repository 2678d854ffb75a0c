"""The anchor's gather step: N per-task JSON files (a, b, c scalars, v 64 floats) into one
HDF5 file with h5py, one dataset per field indexed by task id."""
import json
import sys

import h5py
import numpy as np

if __name__ == "__main__":
    folder, tasks, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    scalars = {name: np.empty(tasks) for name in "abc"}
    v = np.empty((tasks, 64), dtype=np.float32)
    for i in range(tasks):
        with open(f"{folder}/{i}.json") as f:
            record = json.load(f)
        for name in "abc":
            scalars[name][i] = record[name]
        v[i] = record["v"]
    with h5py.File(out, "w") as f:
        for name, values in scalars.items():
            f.create_dataset(f"results/{name}", data=values)
        f.create_dataset("results/v", data=v)
