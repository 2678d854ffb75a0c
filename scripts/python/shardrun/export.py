"""python -m shardrun.export RESULTS.h5 FILE.parquet: what `shardrun export OUT --parquet FILE` runs.

Writes the table of shardrun.read() (params, task columns and results joined; one row per item with
its id for a `rows` job) as Parquet with pyarrow: a vector result is a fixed-size list column.
Exit 2 with one line when pyarrow is missing.
"""
import os
import sys


def write_parquet(path, target):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ._read import columns

    arrays, names = [], []
    for name, values in columns(path).items():
        if values.ndim > 1:
            width = int(np.prod(values.shape[1:]))
            flat = pa.array(np.ascontiguousarray(values).reshape(-1))
            arrays.append(pa.FixedSizeListArray.from_arrays(flat, width))
        elif values.dtype.kind == "O":
            arrays.append(pa.array(list(values), type=pa.string()))
        else:
            arrays.append(pa.array(values))
        names.append(name)
    table = pa.Table.from_arrays(arrays, names=names)
    temp = f"{target}.tmp{os.getpid()}"
    try:
        pq.write_table(table, temp)
        os.replace(temp, target)  # a reader never sees half a file
    finally:
        if os.path.exists(temp):
            os.remove(temp)
    return table.num_rows


def main(argv):
    if len(argv) != 2:
        print("usage: python -m shardrun.export RESULTS.h5 FILE.parquet", file=sys.stderr)
        return 2
    for module, package in (("pyarrow", "pyarrow"), ("h5py", "h5py"), ("numpy", "numpy")):
        try:
            __import__(module)
        except ImportError:
            print(f"shardrun: export --parquet needs the Python package {package} in {sys.executable} "
                  f"(pip install {package}; or set SHARDRUN_PYTHON to a Python that has it)", file=sys.stderr)
            return 2
    rows = write_parquet(argv[0], argv[1])
    print(f"shardrun: wrote {argv[1]}: {rows} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
