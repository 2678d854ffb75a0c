"""Helpers for programs run by shardrun (README: "Exec tasks" and "Worker mode").

Task mode (one process per task):

    import shardrun
    p = shardrun.params()                          # {"lr": 0.1, "epochs": 3, ...} with their YAML types
    shardrun.result(val_accuracy=acc, loss=np.array(curve), embedding=emb)

Worker mode (one process per rank, many tasks):

    for task in shardrun.tasks():                  # sends the ready line, then one task per stdin line
        with task:                                 # an exception fails this task only
            task.done({"embedding": model(rows[slice(*task.range)])})

Standard library only; NumPy and torch values are accepted when the program uses them.
"""
from ._params import params
from ._result import result
from ._worker import Task, answer, tasks

__all__ = ["params", "result", "tasks", "Task", "answer"]
