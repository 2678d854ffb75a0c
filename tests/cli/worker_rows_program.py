"""Answers a `rows` field for the worker-rows tests, in either exec mode, from the row index alone:
row i of `e` is [i, i + 0.5, ..., i + (DIM - 1) / 2] (float32), and `n` is the chunk's rows.

Worker mode (SHARDRUN_WORKER set) goes through the shardrun package's loop (scripts/python), whose
arrays travel as base64 or as <result_dir>/e.npy (SHARDRUN_ARRAY_TRANSPORT decides); task mode writes
$SHARDRUN_RESULT_DIR/e.npy through shardrun.result(). Misbehaviour on purpose, by environment:
ROWS_AS_LIST (send e as nested lists), ROWS_WRONG_TASK=k (task k answers a full chunk's rows,
however short its range).
"""
import os
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


def main():
    if not os.environ.get("SHARDRUN_WORKER"):
        start, end = int(os.environ["SHARDRUN_RANGE_START"]), int(os.environ["SHARDRUN_RANGE_END"])
        shardrun.result(**answer(int(os.environ["SHARDRUN_TASK_ID"]), start, end))
        return
    for task in shardrun.tasks():
        with task:
            task.done(answer(task.task_id, *task.range))


if __name__ == "__main__":
    main()
