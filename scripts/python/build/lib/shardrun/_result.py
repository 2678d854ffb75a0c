"""result(): a task's declared result fields, written where shardrun reads them.

Task mode: scalars and lists go to $SHARDRUN_RESULT (JSON; NaN and ±inf as Python writes them,
which shardrun reads as NaN and ±inf); NumPy and torch arrays go to $SHARDRUN_RESULT_DIR/<field>.npy
as the declared dtype. Worker mode (inside `for task in shardrun.tasks()`): answers the current task.
"""
import json
import os

from . import _current
from ._values import as_stored_array, check_declared, declared_dtypes, plain, _is_numpy

_written = {}  # the JSON fields of this process's earlier result() calls: one file holds them all


def _replace(path, write):
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as f:
        write(f)
    os.replace(temporary, path)  # never a half-written file, should the task be killed meanwhile


def result(**fields):
    """Records the task's result fields by name; call it once, or several times with different fields."""
    declared = declared_dtypes()
    check_declared(fields, declared)
    values = {name: plain(value) for name, value in fields.items()}
    arrays = {name: as_stored_array(name, v, declared) for name, v in values.items() if _is_numpy(v)}
    task = _current.task
    if task is not None:
        task.done({**values, **arrays})
        return
    result_json = os.environ.get("SHARDRUN_RESULT")
    result_dir = os.environ.get("SHARDRUN_RESULT_DIR")
    if not result_json or not result_dir:
        raise RuntimeError("shardrun.result(): $SHARDRUN_RESULT is not set; is this program run by shardrun (exec task)?")
    if arrays:
        import numpy as np

        os.makedirs(result_dir, exist_ok=True)
        for name, array in arrays.items():
            _replace(os.path.join(result_dir, name + ".npy"), lambda f, a=array: np.save(f, a, allow_pickle=False))
    scalars = {name: v for name, v in values.items() if name not in arrays}
    if scalars:
        _written.update(scalars)
        os.makedirs(os.path.dirname(result_json) or ".", exist_ok=True)
        text = json.dumps(_written, allow_nan=True)  # NaN, Infinity, -Infinity: shardrun reads them
        _replace(result_json, lambda f: f.write(text.encode("utf-8")))
