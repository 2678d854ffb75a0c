"""Reads results files written by io_write_example (both layouts, 2 ranks) with h5py alone
and checks shapes, values, attributes, /params, /ranges, dimension scales and `complete`."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BUILD = os.environ["SHARDRUN_BUILD_DIR"]
WRITER = os.path.join(BUILD, "tests", "io", "io_write_example")
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")
TASKS = 101


def expected(task, field, k):
    return task * 10.0 + field * 1000.0 + k


def fails(task):
    return task % 7 == 3


def check(path, layout):
    with h5py.File(path, "r") as f:
        a = f.attrs
        assert bool(a["complete"]) is True, a["complete"]
        assert a["task_count"] == TASKS and a["world_size"] == 2 and a["array_count"] == 1
        assert a["layout"] == layout, a["layout"]
        assert a["params_sha256"] == hashlib.sha256(a["params_json"].encode()).hexdigest()
        assert a["job_text"].startswith("name: io-test")
        assert a["created"].endswith("Z") and a["finished"] >= a["created"]
        assert json.loads(a["library_versions"])["hdf5"] == "1.10.8"
        assert list(a["hostnames"]) == ["node0"]

        status = f["tasks/status"]
        assert h5py.check_enum_dtype(status.dtype) == {"pending": 0, "ok": 1, "failed": 2, "skipped": 3}
        ids = np.arange(TASKS)
        want_status = np.where(ids % 7 == 3, 2, 1)
        assert (status[:] == want_status).all()
        assert (f["tasks/exit_code"][:] == np.where(ids % 7 == 3, 40 + ids % 5, 0)).all()
        assert (f["tasks/attempts"][:] == np.where(ids % 7 == 3, 3, 1)).all()
        assert set(f["tasks/rank"][:]) <= {0, 1}
        hosts = task_labels(f, "host")
        assert all(h == "node%d" % (r % 2) for h, r in zip(hosts, f["tasks/rank"][:]))
        assert (f["tasks/end"][:] - f["tasks/start"][:] == 0.5).all()

        shapes = {"energy": (TASKS,), "spectrum": (TASKS, 4), "counts": (TASKS, 2, 3)}
        dtypes = {"energy": np.float64, "spectrum": np.float32, "counts": np.int32}
        for field_index, name in enumerate(["energy", "spectrum", "counts"]):
            d = f["results/" + name]
            assert d.shape == shapes[name], (name, d.shape)
            assert d.dtype == dtypes[name], (name, d.dtype)
            values = d[:].reshape(TASKS, -1).astype(np.float64)
            for task in range(TASKS):
                row = values[task]
                if fails(task):
                    assert (np.isnan(row) if name != "counts" else row == -2**31).all(), (name, task, row)
                else:
                    want = [expected(task, field_index, k) for k in range(row.size)]
                    assert (row == want).all(), (name, task, row, want)
            # netCDF-4 dimensions: the group's own task coordinate on axis 0 (README "Results"), a bare
            # <field>_dim<k> on each further axis.
            names = [[scale.name for scale in dim.values()] for dim in d.dims]
            assert names == [["/results/task"]] + [["/results/%s_dim%d" % (name, k)] for k in range(d.ndim - 1)], names
            assert d.attrs["_FillValue"] == d.fillvalue or np.isnan(d.attrs["_FillValue"]), name
        assert f["results/energy"].attrs["units"] == "J"
        assert np.isnan(f["results/energy"].fillvalue)

        assert (f["params/alpha"][:] == 0.5 * ids).all()
        assert (f["params/n"][:] == ids % 3).all()
        assert list(f["params/label"].asstr()[:5]) == ["p0", "p1", "p2", "p3", "p4"]
        assert f["task"][:].tolist() == list(range(TASKS))
        for group in ("params", "ranges", "tasks"):
            assert f[group]["task"][:].tolist() == list(range(TASKS)), group
            for name, column in f[group].items():
                if name == "task" or name in ("host_label", "device_label"):
                    continue  # coordinates: task itself, the texts of host's and device's codes
                assert [scale.name for scale in column.dims[0].values()] == [f"/{group}/task"], (group, name)
        for d in (f["params/label"], f["tasks/host_label"], f["tasks/device_label"]):
            info = h5py.check_string_dtype(d.dtype)
            assert (info.encoding, info.length) == ("utf-8", None), (d.name, d.dtype)
        for name in ("host", "device"):
            # int32 codes on task; their texts are the coordinate <name>_label (its own dimension), "" first
            codes, labels = f["tasks"][name], f["tasks"][name + "_label"]
            assert codes.dtype == np.int32 and codes.attrs["labels"] == name + "_label", (name, codes.dtype)
            assert labels.attrs["CLASS"] == b"DIMENSION_SCALE" and labels.asstr()[0] == "", name
            assert len(set(labels.asstr()[:])) == labels.shape[0], f"{name}: a label twice"
        assert f["tasks/start"].attrs["units"] == "seconds since 1970-01-01T00:00:00Z"
        assert (f["ranges/start"][:] == 100 * ids).all() and (f["ranges/end"][:] == 100 * ids + 100).all()
    # h5dump, a reader that knows nothing of h5py, must read it too.
    subprocess.run(["h5dump", "-H", path], check=True, capture_output=True)


def task_labels(f, name):
    """/tasks/host or device as str: the int32 codes looked up in their label coordinate."""
    column = f["tasks"][name]
    return [str(v) for v in f["tasks"][column.attrs["labels"]].asstr()[:][column[:]]]


def main():
    scratch = tempfile.mkdtemp(prefix="shardrun-io-h5py-")
    try:
        for layout in ("shards", "single"):
            path = os.path.join(scratch, layout, "results.h5")
            proc = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", WRITER, path, layout, str(TASKS)],
                                  capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            check(path, layout)
            print("ok:", layout)
    finally:
        shutil.rmtree(scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
