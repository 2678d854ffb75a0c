"""params(): the task's parameters with their types (task mode: $SHARDRUN_PARAMS; worker mode: the task's request)."""
import json
import os

from . import _current


def params():
    """The current task's parameters as a dict, with the types the job file gave them (int, float, bool, str)."""
    task = _current.task
    if task is not None:
        return dict(task.params)
    text = os.environ.get("SHARDRUN_PARAMS")
    if text is None:
        if os.environ.get("SHARDRUN_WORKER"):
            raise RuntimeError("shardrun.params(): no task is current; in worker mode use it inside `for task in shardrun.tasks()`")
        raise RuntimeError("shardrun.params(): $SHARDRUN_PARAMS is not set; is this program run by shardrun (exec task)?")
    return json.loads(text)
