"""The exec program of param_shapes_test.py: results whose length is the task's `epochs`.

loss[i] = 100 seed + i + 0.5 (float64, [epochs]) and traj[i] = [i, -seed i] (float32,
[epochs, 2]). argv[1] picks how they reach shardrun: `json` ($SHARDRUN_RESULT, nested lists),
`npy` (<field>.npy in $SHARDRUN_RESULT_DIR) or `worker` (exec.mode: worker answers: loss as a
list, traj as a NumPy array, which travels as base64). The task whose id is $WRONG_TASK
answers one value too many in both fields.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["PROGRAM_SOURCE"], "scripts"))


def values(task_id, params):
    n = params["epochs"] + (1 if str(task_id) == os.environ.get("WRONG_TASK") else 0)
    seed = params["seed"]
    loss = [100.0 * seed + i + 0.5 for i in range(n)]
    traj = np.array([[i, -seed * i] for i in range(n)], dtype=np.float32).reshape(n, 2)
    return loss, traj


def main():
    mode = sys.argv[1]
    if mode == "worker":
        import shardrun_worker
        for task in shardrun_worker.tasks():
            with task:
                loss, traj = values(task.task_id, task.params)
                task.done({"loss": loss, "traj": traj})
        return
    task_id = int(os.environ["SHARDRUN_TASK_ID"])
    loss, traj = values(task_id, json.loads(os.environ["SHARDRUN_PARAMS"]))
    if mode == "json":
        with open(os.environ["SHARDRUN_RESULT"], "w") as f:
            json.dump({"loss": loss, "traj": traj.tolist()}, f)
    else:
        np.save(os.path.join(os.environ["SHARDRUN_RESULT_DIR"], "loss.npy"), np.array(loss, dtype=np.float64))
        np.save(os.path.join(os.environ["SHARDRUN_RESULT_DIR"], "traj.npy"), traj)


if __name__ == "__main__":
    main()
