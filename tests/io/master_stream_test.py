"""The master streamed a block of rows at a time equals, dataset by dataset and attribute by
attribute (h5py), the master of the whole-table path it replaced: both layouts, 2 ranks,
three field shapes, strings in /params and /tasks, failed tasks, a re-run that turns a
failed task ok, a lost segment (pending rows); at a block size that does not divide the
task count (7 rows for 101 tasks, so a block ends inside segments and runs) and at the
default (one block)."""
import os
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

BUILD = os.environ["SHARDRUN_BUILD_DIR"]
WRITER = os.path.join(BUILD, "tests", "io", "io_master_paths_example")
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")
TASKS = 101
# What the two paths state differently on purpose: the time of writing, the element index
# (finalize writes 0, the table path is stated as a merge), and the digest only a streamed
# finalize records (io/output/resume_scan.hpp).
ATTRS_THAT_DIFFER = {"finished", "array_index", "segments_digest"}
# Dimension-scale bookkeeping holds object references, whose addresses differ by file.
REFERENCE_ATTRS = {"DIMENSION_LIST", "REFERENCE_LIST"}


def same_attrs(a, b, where, ignore):
    names = (set(a.attrs) | set(b.attrs)) - ignore - REFERENCE_ATTRS
    for name in sorted(names):
        assert name in a.attrs and name in b.attrs, f"{where}: attribute {name} only in one file"
        x, y = a.attrs[name], b.attrs[name]
        assert np.array_equal(np.asarray(x), np.asarray(y), equal_nan=np.asarray(x).dtype.kind == "f"), \
            f"{where}.attrs[{name}]: {x!r} != {y!r}"


def same_files(streamed, table, ignore, ignore_in_datasets=frozenset()):
    with h5py.File(streamed, "r") as a, h5py.File(table, "r") as b:
        same_attrs(a, b, "/", ignore)
        names_a, names_b = [], []
        a.visit(names_a.append)
        b.visit(names_b.append)
        assert sorted(names_a) == sorted(names_b), (sorted(set(names_a) ^ set(names_b)))
        datasets = 0
        for name in names_a:
            x, y = a[name], b[name]
            assert type(x) is type(y), name
            same_attrs(x, y, name, set(ignore_in_datasets))
            if not isinstance(x, h5py.Dataset):
                continue
            assert x.dtype == y.dtype and x.shape == y.shape, (name, x.dtype, y.dtype, x.shape, y.shape)
            if x.shape is None or 0 in x.shape:
                continue
            if h5py.check_string_dtype(x.dtype):
                assert list(x.asstr()[...]) == list(y.asstr()[...]), name
            else:
                assert np.array_equal(x[...], y[...], equal_nan=x.dtype.kind == "f"), name
            datasets += 1
        return datasets, a["tasks/status"][:]


def run(layout, block_rows):
    work = tempfile.mkdtemp(prefix="master-stream-")
    try:
        out = os.path.join(work, "out.h5")
        env = dict(os.environ)
        if block_rows:
            env["SHARDRUN_STREAM_BLOCK_ROWS"] = str(block_rows)
        else:
            env.pop("SHARDRUN_STREAM_BLOCK_ROWS", None)
        subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", WRITER, out, layout, str(TASKS)],
                       check=True, env=env, timeout=120)
        # A finished single file is the sink's file finished in place: its /tasks/status never
        # had the `values` note that a written master adds.
        n, status = same_files(out + ".final.h5", out + ".table0.h5", ATTRS_THAT_DIFFER,
                               {"values"} if layout == "single" else set())
        assert n >= 15, n  # /task, 8 /tasks columns, 3 results, 3 params, 2 ranges
        assert (status == np.where(np.arange(TASKS) % 7 == 3, 2, 1)).all()
        _, status = same_files(out + ".merged.h5", out + ".table1.h5", {"finished"})
        if layout == "shards":
            assert status[3] == 1, "the re-run of task 3 did not win"
            assert (status == 0).any(), "the lost segment left no task pending"
        print(f"{layout} block {block_rows or 'default'}: {n} datasets equal")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    for layout in ("shards", "single"):
        for block_rows in (7, None):
            run(layout, block_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
