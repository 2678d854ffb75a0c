"""task(): the current task read one way in both modes (docs/workers.md, "The current task").

Task mode reads the variables shardrun sets ($SHARDRUN_TASK_ID, $SHARDRUN_RANGE_START/_END,
$SHARDRUN_PARAMS, $SHARDRUN_CHECKPOINT_DIR, ...); worker mode answers with the task of
`for task in shardrun.tasks()`, which has the same attributes.
"""
import json
import os

from . import _current


def need(variable, caller):
    """The value of $variable, or a RuntimeError naming the variable that is really missing."""
    value = os.environ.get(variable)
    if value is None:
        raise RuntimeError(f"{caller}: ${variable} is not set; is this program run by shardrun (exec task)? "
                           f"To run one task by hand: shardrun run JOB --task ID")
    return value


def records_of():
    """The current task's records of data.input (line-based inputs): the items of its range."""
    from ._records import records

    return records()


class EnvironmentTask:
    """Task mode: the task this process was started for, from its environment."""

    def __init__(self):
        caller = "shardrun.task()"
        self.task_id = int(need("SHARDRUN_TASK_ID", caller))
        self.task_count = int(need("SHARDRUN_TASK_COUNT", caller))
        self.params = json.loads(need("SHARDRUN_PARAMS", caller))
        start, end = os.environ.get("SHARDRUN_RANGE_START"), os.environ.get("SHARDRUN_RANGE_END")
        self.range = (int(start), int(end)) if start is not None and end is not None else None
        self.attempt = int(os.environ.get("SHARDRUN_ATTEMPT", "1"))
        self.task_dir = os.environ.get("SHARDRUN_TASK_DIR")
        self.checkpoint_dir = os.environ.get("SHARDRUN_CHECKPOINT_DIR") or None

    def records(self):
        """This task's records of data.input (line-based inputs): the items of its range."""
        return records_of()


def task():
    """The current task: task_id, task_count, params, range ((start, end) or None), attempt, task_dir,
    checkpoint_dir, records(); inside `for task in shardrun.tasks()` that task, else this process's."""
    if _current.task is not None:
        return _current.task
    if os.environ.get("SHARDRUN_WORKER"):
        raise RuntimeError("shardrun.task(): no task is current; in worker mode use it inside `for task in shardrun.tasks()`")
    return EnvironmentTask()


def checkpoint_dir():
    """The task's checkpoint folder, made if missing: the same for every attempt, drain, requeue and --resume
    of the task, removed once it succeeds (unless exec.keep_checkpoints)."""
    if _current.task is None and not os.environ.get("SHARDRUN_WORKER"):
        # Task mode: its own variable, so the error names what is really missing.
        path = need("SHARDRUN_CHECKPOINT_DIR", "shardrun.checkpoint_dir()")
    else:
        path = task().checkpoint_dir
    if not path:
        raise RuntimeError("shardrun.checkpoint_dir(): $SHARDRUN_CHECKPOINT_DIR is not set; is this program run by "
                           "shardrun (task: exec)?")
    os.makedirs(path, exist_ok=True)
    return path
