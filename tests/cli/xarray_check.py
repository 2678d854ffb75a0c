"""Reads a shardrun results file the way a user does, with xarray (h5netcdf engine, no options)
and with h5py, and checks that both see the same values on named dimensions.

xarray with open_datatree (>= 2024.10) and h5netcdf come from scripts/install-deps, in the
venv /opt/shardrun-pyenv (it sees Debian's h5py and numpy); the tests re-run themselves under
that interpreter when the one ctest started has no such xarray."""
import os
import shutil
import subprocess
import sys

GROUPS = ("results", "params", "tasks", "ranges")
TIME_UNITS = "seconds since 1970-01-01T00:00:00Z"


def ensure_xarray():
    """Re-executes the calling script under the venv's python when xarray is missing here."""
    try:
        import h5netcdf  # noqa: F401
        import xarray
        if hasattr(xarray, "open_datatree"):
            return
    except ImportError:
        pass
    python = os.path.join(os.environ.get("SHARDRUN_PYENV", "/opt/shardrun-pyenv"), "bin", "python")
    if os.environ.get("SHARDRUN_XARRAY_REEXEC") or not os.access(python, os.X_OK):
        sys.exit(f"xarray >= 2024.10 (open_datatree) and h5netcdf are not importable by {sys.executable} "
                 f"nor by {python}: run scripts/install-deps")
    os.environ["SHARDRUN_XARRAY_REEXEC"] = "1"
    os.execv(python, [python, *sys.argv])


def _is_scale(dataset):
    return dataset.attrs.get("CLASS") == b"DIMENSION_SCALE"


def _variables(group):
    import h5py
    return {name: obj for name, obj in group.items() if isinstance(obj, h5py.Dataset) and not _is_scale(obj)}


def _expected_xarray_values(dataset):
    """What xarray should show for an h5py dataset: CF masking of _FillValue, decoded strings."""
    import h5py
    import numpy as np
    if h5py.check_string_dtype(dataset.dtype) is not None:
        return np.array(dataset.asstr()[...], dtype=object)
    values = dataset[...]
    if _is_bool(dataset):
        return values.astype(bool)  # xarray's BooleanCoder: uint8 with dtype="bool" reads as bool
    fill = dataset.attrs.get("_FillValue")
    if fill is not None and np.issubdtype(values.dtype, np.integer):
        values = np.where(values == fill, np.nan, values.astype(np.float64))
    return values


def _is_bool(dataset):
    """A bool result field: uint8 with the attribute dtype="bool" (and no _FillValue, issue 37 point 7)."""
    return dataset.attrs.get("dtype") == "bool"


def _over_items(dataset):
    """A data job's `rows` field, stored as one array over the items: axis 0 is `item`, not `task`."""
    return "item_chunk" in dataset.attrs


def _dim_names(name, dataset):
    """The dimension names xarray shows for a dataset (io/README.md: task, or item, then its own axes)."""
    if _over_items(dataset):
        return ("item",) + tuple(f"{name}_dim{k}" for k in range(1, dataset.ndim))
    return ("task",) + tuple(f"{name}_dim{k}" for k in range(dataset.ndim - 1))


def check_h5py_layout(test, f, task_count):
    """Every dataset of every group carries one named dimension per axis; strings are UTF-8 vlen."""
    import h5py
    import numpy as np
    test.assertTrue(_is_scale(f["task"]))
    test.assertEqual(f["task"][:].tolist(), list(range(task_count)))
    for group_name in GROUPS:
        if group_name not in f:
            continue
        test.assertTrue(_is_scale(f[group_name]["task"]), f"/{group_name}/task is no dimension scale")
        test.assertEqual(f[group_name]["task"][:].tolist(), list(range(task_count)), f"/{group_name}/task")
        for name, dataset in _variables(f[group_name]).items():
            where = f"/{group_name}/{name}"
            if _over_items(dataset):
                rows = f["ranges/end"][:] - f["ranges/start"][:]
                test.assertEqual(dataset.shape[0], int(np.minimum(rows, dataset.attrs["item_chunk"]).sum()), where)
            else:
                test.assertEqual(dataset.shape[0], task_count, where)
            for axis, (dim, label) in enumerate(zip(dataset.dims, _dim_names(name, dataset))):
                test.assertEqual(len(dim), 1, f"{where} axis {axis} has {len(dim)} dimension scales")
                scale = dim[0]
                # Each group labels its task axis with its own /<group>/task (issue 24, point 6).
                expected = f"/{group_name}/{label}"
                test.assertEqual(scale.name, expected, where)
                test.assertEqual(scale.shape, (dataset.shape[axis],), where)
            string = h5py.check_string_dtype(dataset.dtype)
            if string is not None:
                # Variable-length UTF-8: str in xarray, and what netCDF-C reads correctly.
                test.assertEqual((string.encoding, string.length), ("utf-8", None), f"{where} is not UTF-8 vlen")
                test.assertTrue(all(isinstance(v, str) for v in dataset.asstr()[:]), where)
            # <field>_length columns have no _FillValue (issue 37, point 7): xarray keeps them int64.
            is_length = name.endswith("_length") and name[: -len("_length")] in f[group_name]
            if is_length:
                test.assertNotIn("_FillValue", dataset.attrs, where)
                test.assertEqual(dataset.dtype, np.int64, where)
            elif group_name == "results" and _is_bool(dataset):
                # xarray decodes dtype="bool" only without a _FillValue; a task without a result reads false.
                test.assertNotIn("_FillValue", dataset.attrs, where)
                test.assertEqual(dataset.dtype, np.uint8, where)
                test.assertEqual(dataset.fillvalue, 0, where)
            elif group_name == "results":
                test.assertIn("_FillValue", dataset.attrs, where)
                fill, declared = dataset.attrs["_FillValue"], dataset.fillvalue
                test.assertTrue(fill == declared or (np.isnan(fill) and np.isnan(declared)), where)
    for column in ("start", "end"):
        test.assertEqual(f["tasks"][column].attrs["units"], TIME_UNITS)
    for name, value in f.attrs.items():
        if isinstance(value, bytes):
            test.fail(f"root attribute {name} reads as bytes, not str")


def check_task_labels(test, ds, f):
    """/tasks/host and device: int32 codes on task, their texts the coordinate <name>_label on its
    own dimension ("" first: no host yet), so `ds.host_label[ds.host]` names every task's host."""
    import numpy as np
    for name in ("host", "device"):
        label = name + "_label"
        test.assertEqual(f["tasks"][name].attrs["labels"], label)
        test.assertEqual(ds[label].dims, (label,))
        test.assertEqual(ds[label].values[0], "")
        test.assertTrue(all(isinstance(v, str) for v in ds[label].values), label)
        named = ds[label][ds[name]]
        test.assertEqual(named.dims, ("task",))
        want = f["tasks"][label].asstr()[:][f["tasks"][name][:]]
        test.assertEqual(named.values.tolist(), [str(v) for v in want], name)
        test.assertTrue(np.issubdtype(ds[name].dtype, np.integer), name)


def check_xarray_groups(test, path, f, task_count):
    """open_dataset per group with no options shows exactly the h5py variables and values."""
    import h5py
    import numpy as np
    import xarray as xr
    for group_name in GROUPS:
        if group_name not in f:
            continue
        with xr.open_dataset(path, engine="h5netcdf", group=group_name) as ds:
            # A single-group open keeps the task ids (issue 24, point 6): sortby and isel
            # must not fall back to positions 0..n-1.
            test.assertIn("task", ds.coords, group_name)
            test.assertEqual(ds["task"].values.tolist(), list(range(task_count)), group_name)
            variables = _variables(f[group_name])
            # Coordinates of their own dimension (task; /tasks/host_label and device_label) are no variables here.
            scales = {name for name, obj in f[group_name].items() if isinstance(obj, h5py.Dataset) and _is_scale(obj)}
            names = set(ds.data_vars) | (set(ds.coords) - scales)
            test.assertEqual(names, set(variables), group_name)
            if group_name == "tasks":
                check_task_labels(test, ds, f)
            for name, dataset in variables.items():
                seen = ds[name]
                test.assertEqual(seen.dims, _dim_names(name, dataset), name)
                if group_name == "tasks" and name in ("start", "end"):
                    test.assertTrue(np.issubdtype(seen.dtype, np.datetime64), f"{name}: {seen.dtype}")
                    seconds = (seen.values - np.datetime64("1970-01-01T00:00:00")) / np.timedelta64(1, "s")
                    np.testing.assert_allclose(seconds, dataset[...], rtol=0, atol=1e-6)
                    continue
                want = _expected_xarray_values(dataset)
                if want.dtype == object:
                    test.assertTrue(all(isinstance(v, str) for v in seen.values.ravel()), f"{name}: not str")
                    test.assertEqual(seen.values.tolist(), want.tolist(), name)
                else:
                    np.testing.assert_array_equal(seen.values, want, err_msg=f"/{group_name}/{name}")
            if group_name == "params":
                test.assertEqual(set(ds.coords) - {"task"}, set(variables), "params are coordinates")


def check_attempts(test, path, f):
    """/attempts keeps its own layout: one row per attempt, the task id a column on `row`."""
    import numpy as np
    import xarray as xr
    if "attempts" not in f:
        return
    with xr.open_dataset(path, engine="h5netcdf", group="attempts") as ds:
        test.assertEqual(ds["task"].dims, ("row",))
        np.testing.assert_array_equal(ds["task"].values, f["attempts/task"][:])


def check_datatree(test, path, f, task_count):
    import numpy as np
    import xarray as xr
    with xr.open_datatree(path, engine="h5netcdf") as tree:
        test.assertEqual(tree["task"].values.tolist(), list(range(task_count)))
        for group_name in GROUPS:
            if group_name not in f:
                continue
            node = tree[group_name]
            # The root's task coordinate is inherited by every group.
            test.assertEqual(node["task"].values.tolist(), list(range(task_count)), group_name)
            for name in _variables(f[group_name]):
                test.assertEqual(node[name].shape, f[group_name][name].shape, name)
        if "results" in f and "params" in f:
            # The one-liner the README shows: results labelled with their sweep coordinates.
            labelled = tree["results"].to_dataset().assign_coords(tree["params"].to_dataset().coords)
            for name in _variables(f["params"]):
                test.assertIn(name, labelled.coords)
            for name in _variables(f["results"]):
                if not _over_items(f["results"][name]):
                    test.assertEqual(labelled[name].shape[0], task_count)
                np.testing.assert_array_equal(labelled[name].values,
                                              _expected_xarray_values(f["results"][name]))


def check_ncdump(test, path, task_count):
    """netCDF-C itself (ncdump, from netcdf-bin) reads the whole file: dimensions and data."""
    ncdump = shutil.which("ncdump")
    test.assertIsNotNone(ncdump, "ncdump (Debian's netcdf-bin) is missing: run scripts/install-deps")
    proc = subprocess.run([ncdump, path], capture_output=True, text=True, timeout=120)
    test.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
    test.assertIn(f"task = {task_count} ;", proc.stdout)
    test.assertIn("group: results {", proc.stdout)


def check_results_file(test, path, task_count):
    """All of the above on one file; returns nothing, fails `test` with the first difference."""
    import h5py
    with h5py.File(path, "r") as f:
        check_h5py_layout(test, f, task_count)
        check_xarray_groups(test, path, f, task_count)
        check_attempts(test, path, f)
        check_datatree(test, path, f, task_count)
    check_ncdump(test, path, task_count)
