"""A task (or worker, with HELPER_WORKER=1) written with the shardrun package, for python_helper_test.

HELPER_VALUES picks what it hands to shardrun.result(): numpy, torch, or plain (and then NumPy and
torch must not be importable). Every value follows the task's typed parameters, so a wrong type or
a wrong row in the results file shows.
"""
import os
import sys

import shardrun

KIND = os.environ["HELPER_VALUES"]


def check_types(p):
    # shardrun.params() keeps the job file's types; SHARDRUN_PARAM_* would all be strings.
    assert type(p["epochs"]) is int, p
    assert type(p["lr"]) is float, p
    assert type(p["warm"]) is bool, p
    assert type(p["tag"]) is str, p


def values(p):
    """(val_accuracy, loss, embedding, steps) as plain Python, the expected values the test recomputes."""
    e, lr = p["epochs"], p["lr"]
    loss = [lr * (e - k) for k in range(3)] + [float("nan"), float("inf"), -float("inf")]
    embedding = [[lr * e + r + 0.25 * c for c in range(2)] for r in range(3)]
    return lr * 10 + e, loss, embedding, e + (1 if p["warm"] else 0) + len(p["tag"])


def record(p):
    check_types(p)
    accuracy, loss, embedding, steps = values(p)
    if KIND == "numpy":
        import numpy as np
        # float32 scalar (not JSON serialisable by json.dump), float64 array, a float64 array
        # for a float32 field (cast by the helper), an int64 scalar.
        shardrun.result(val_accuracy=np.float32(accuracy), loss=np.array(loss), embedding=np.array(embedding),
                        steps=np.int64(steps))
    elif KIND == "torch":
        import torch
        shardrun.result(val_accuracy=torch.tensor(accuracy, dtype=torch.float32),
                        loss=torch.tensor(loss, dtype=torch.float64, requires_grad=True) * 1.0,
                        embedding=torch.tensor(embedding, dtype=torch.float32), steps=torch.tensor(steps))
    else:
        for absent in ("numpy", "torch"):
            try:
                __import__(absent)
            except ImportError:
                continue
            sys.exit(f"{absent} is importable, but this run must have neither")
        shardrun.result(val_accuracy=accuracy, loss=loss, embedding=embedding, steps=steps)


if os.environ.get("HELPER_WORKER"):
    for task in shardrun.tasks():
        with task:
            record(shardrun.params())
else:
    record(shardrun.params())
