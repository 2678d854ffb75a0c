"""Helpers for programs run by shardrun (docs/job-file.md, "Exec tasks"; docs/workers.md, "Persistent workers").

Task mode (one process per task):

    import shardrun
    p = shardrun.params()                          # {"lr": 0.1, "epochs": 3, ...} with their YAML types
    shardrun.result(val_accuracy=acc, loss=np.array(curve), embedding=emb)

Worker mode (one process per rank, many tasks):

    for task in shardrun.tasks():                  # sends the ready line, then one task per stdin line
        with task:                                 # an exception fails this task only
            task.done({"embedding": model(rows[slice(*task.range)])})

Either mode, one way to read the task (its range, records, params and checkpoint folder):

    t = shardrun.task()                            # t.range, t.params, t.records(), t.task_id, t.attempt
    ckpt = shardrun.checkpoint_dir()               # kept through retries, drains and --resume; gone on success

Line inputs: shardrun.records() (the same as shardrun.task().records()) is the current task's records
(str per text line, dict per JSON Lines or CSV record) in either mode. shardrun.read(OUT) is a results
file as a pandas DataFrame (params, task columns, results; rows joined to data.id's ids).

Standard library only (read() needs h5py, NumPy and pandas); NumPy and torch values are accepted when the program uses them.
"""
from ._params import params
from ._read import read
from ._records import records
from ._result import result
from ._task import checkpoint_dir, task
from ._worker import Task, answer, tasks

__all__ = ["params", "records", "read", "result", "tasks", "Task", "answer", "task", "checkpoint_dir"]
