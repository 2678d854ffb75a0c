"""params(): the task's parameters with their types (task mode: $SHARDRUN_PARAMS; worker mode: the task's request)."""
import json
import os

from . import _current
from ._task import need


def params():
    """The current task's parameters as a dict, with the types the job file gave them (int, float, bool, str)."""
    task = _current.task
    if task is not None:
        return dict(task.params)
    if os.environ.get("SHARDRUN_WORKER") and "SHARDRUN_PARAMS" not in os.environ:
        raise RuntimeError("shardrun.params(): no task is current; in worker mode use it inside `for task in shardrun.tasks()`")
    return json.loads(need("SHARDRUN_PARAMS", "shardrun.params()"))
