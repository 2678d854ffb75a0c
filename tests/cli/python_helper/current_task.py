"""Answers what shardrun.task() says about the current task, for current_task_test: the same
function runs as a task (one process per task) and, with CURRENT_WORKER=1, inside the worker loop."""
import os

import shardrun


def answer():
    t = shardrun.task()
    start, end = t.range
    own_folder = t.checkpoint_dir == os.path.join(os.environ["CURRENT_OUTPUT"] + ".tasks", str(t.task_id), "checkpoint")
    shardrun.result(task_seen=t.task_id, count=t.task_count, start=start, end=end, lr=t.params["lr"],
                    attempt=t.attempt, own_checkpoint_dir=int(own_folder), same_params=int(t.params == shardrun.params()))


if os.environ.get("CURRENT_WORKER"):
    for task in shardrun.tasks():
        with task:
            assert shardrun.task() is task
            answer()
else:
    answer()
