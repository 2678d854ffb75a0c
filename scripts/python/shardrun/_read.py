"""read(): a results file as one table (pandas), params, task columns and results joined.

A job with a `rows` field (one row per data item) gives one row per item: `item` (its place),
`id` (data.id's value, when the job gave data.id), `task`, the task's params, status and timing
columns, then the results; a per-task result is repeated on each of the task's items. Any other job
gives one row per task. A vector result is one column of arrays (Parquet: a fixed-size list).
Needs h5py and NumPy; pandas for read(), pyarrow for the Parquet export (shardrun.export).
"""
_TASK_COLUMNS = ("status", "attempts", "exit_code", "rank", "start", "end", "cpu_time", "mem_peak", "message")
_BARE = b"This is a netCDF dimension but not a netCDF variable"


def _is_coordinate(dataset):
    name = dataset.attrs.get("NAME", b"")
    return not (isinstance(name, bytes) and name.startswith(_BARE))


def _text(values):
    return [v.decode("utf-8") if isinstance(v, bytes) else v for v in values]


def columns(path):
    """The joined table as an ordered dict of NumPy arrays (1-D, or [rows, ...] for vector results)."""
    import h5py
    import numpy as np

    out = {}
    with h5py.File(path, "r") as f:
        results = f.get("results")
        count = f["tasks/status"].shape[0]
        task_cols = {"task": np.arange(count, dtype=np.int64)}
        params = f.get("params")
        if params is not None:
            order = [n.decode() if isinstance(n, bytes) else n for n in params.attrs.get("column_order", [])]
            for name in order or [n for n in params if n != "task"]:
                values = params[name][()]
                task_cols[name] = np.array(_text(values), dtype=object) if values.dtype.kind == "O" else values
        status_names = {v: k for k, v in (h5py.check_enum_dtype(f["tasks/status"].dtype) or {}).items()}
        for name in _TASK_COLUMNS:
            if name not in f["tasks"]:
                continue
            values = f["tasks"][name][()]
            if name == "status" and status_names:
                values = np.array([status_names.get(int(v), str(v)) for v in values], dtype=object)
            elif values.dtype.kind == "O":
                values = np.array(_text(values), dtype=object)
            task_cols[name] = values
        if "ranges" in f:
            task_cols["range_start"] = f["ranges/start"][()]
            task_cols["range_end"] = f["ranges/end"][()]
        # Fields in the job's order (the root's `fields`); dimension scales (task, item, <field>_dim<k>) label them.
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f.attrs.get("fields", [])]
        if results is not None:
            names += sorted(n for n in results if n not in names)
        fields = {n: results[n] for n in names
                  if results is not None and n in results and results[n].attrs.get("CLASS") != b"DIMENSION_SCALE"}
        item_fields = {n: d for n, d in fields.items() if "item_chunk" in d.attrs}
        if item_fields:
            starts, ends = task_cols["range_start"], task_cols["range_end"]
            rows = np.maximum(ends - starts, 0)
            task_of_item = np.repeat(np.arange(count, dtype=np.int64), rows)
            out["item"] = np.arange(task_of_item.shape[0], dtype=np.int64)
            item = results.get("item")
            if item is not None and _is_coordinate(item):
                ids = item[()]
                out["id"] = np.array(_text(ids), dtype=object) if ids.dtype.kind == "O" else ids
            for name, values in task_cols.items():
                out[name] = values[task_of_item]
        else:
            task_of_item = None
            out.update(task_cols)
        for name, dataset in fields.items():
            values = dataset[()]
            if values.dtype.kind == "O":
                values = np.array(_text(values), dtype=object)
            if task_of_item is not None and name not in item_fields:
                values = values[task_of_item]
            out[name] = values
    return out


def read(path, as_xarray=False):
    """The results file `path` (a finished master) as a pandas DataFrame, or with as_xarray=True an
    xarray Dataset over `item` (indexed by the ids when the job gave data.id) or `task`."""
    data = columns(path)
    if as_xarray:
        import xarray as xr

        dim = "item" if "item" in data else "task"
        index = data.pop("id", None)
        variables = {}
        for name, values in data.items():
            if name == dim:
                continue
            dims = (dim,) + tuple(f"{name}_dim{k}" for k in range(1, values.ndim))
            variables[name] = (dims, values)
        coords = {dim: index if index is not None else data[dim]}
        return xr.Dataset(variables, coords=coords)
    import pandas as pd

    frame = {}
    for name, values in data.items():
        frame[name] = list(values) if values.ndim > 1 else values
    return pd.DataFrame(frame)
