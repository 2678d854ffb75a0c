"""Worker mode's helper under its old name: the same loop as the `shardrun` package (scripts/python/).

    import shardrun_worker
    for task in shardrun_worker.tasks():
        with task:
            task.done({"embedding": model(rows[slice(*task.range)])})

Kept so programs that put scripts/ on PYTHONPATH go on working; new programs `pip install
scripts/python` and `import shardrun`. Without the installed package, the one beside this file is used.
"""
import os
import sys

try:
    import shardrun._worker as _worker
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
    import shardrun._worker as _worker

Task = _worker.Task
tasks = _worker.tasks
answer = _worker.answer

__all__ = ["Task", "tasks", "answer"]
