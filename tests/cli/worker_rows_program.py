"""Answers a `rows` field for the worker-rows tests, in either exec mode, from the row index alone:
row i of `e` is [i, i + 0.5, ..., i + (DIM - 1) / 2] (float32), and `n` is the chunk's rows.

Worker mode (SHARDRUN_WORKER set) goes through the shardrun package's loop (scripts/python), whose
arrays travel as base64 or as <result_dir>/e.npy (SHARDRUN_ARRAY_TRANSPORT decides); task mode writes
$SHARDRUN_RESULT_DIR/e.npy through shardrun.result(). Misbehaviour on purpose, by environment:
ROWS_AS_LIST (send e as nested lists), ROWS_WRONG_TASK=k (task k answers a full chunk's rows,
however short its range), ROWS_POISON=i,j,... (a range holding one of these rows kills the worker
with SIGKILL, or with ROWS_POISON_RAISES fails inside `with task:` so the worker answers failed),
ROWS_LOG=path (each range sent is appended there as "task_id start end").
"""
import os
import signal
import sys

import numpy as np

# This checkout's package (scripts/python), before any installed one.
sys.path.insert(0, os.path.join(os.environ["WORKER_SCRIPTS"], "python"))
import shardrun  # noqa: E402

DIM = int(os.environ.get("ROWS_DIM", "16"))
CHUNK = int(os.environ.get("ROWS_CHUNK", "0"))


def rows(start, end):
    return np.arange(start, end, dtype=np.float32)[:, None] + np.arange(DIM, dtype=np.float32)[None, :] / 2


def answer(task_id, start, end):
    wrong = os.environ.get("ROWS_WRONG_TASK")
    if wrong not in (None, "") and int(wrong) == task_id:
        end = start + CHUNK
    e = rows(start, end)
    return {"e": e.tolist() if os.environ.get("ROWS_AS_LIST") else e, "n": end - start}


def poisoned(start, end):
    rows = os.environ.get("ROWS_POISON", "")
    return any(start <= int(row) < end for row in rows.split(",") if row)


def log_range(task_id, start, end):
    if os.environ.get("ROWS_LOG"):
        with open(os.environ["ROWS_LOG"], "a") as f:
            f.write(f"{task_id} {start} {end}\n")


def main():
    if not os.environ.get("SHARDRUN_WORKER"):
        start, end = int(os.environ["SHARDRUN_RANGE_START"]), int(os.environ["SHARDRUN_RANGE_END"])
        shardrun.result(**answer(int(os.environ["SHARDRUN_TASK_ID"]), start, end))
        return
    for task in shardrun.tasks():
        log_range(task.task_id, *task.range)
        if poisoned(*task.range) and not os.environ.get("ROWS_POISON_RAISES"):
            os.kill(os.getpid(), signal.SIGKILL)
        with task:
            if poisoned(*task.range):
                raise ValueError(f"poison row in {list(task.range)}")
            task.done(answer(task.task_id, *task.range))


if __name__ == "__main__":
    main()
