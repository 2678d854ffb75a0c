"""A long task that counts steps into its checkpoint folder (shardrun.checkpoint_dir()) and resumes
from the last one it finds, for checkpoint_test. Task mode by default; COUNTER_WORKER=1 runs it as
a worker. COUNTER_STEPS steps of COUNTER_STEP_SECONDS each; COUNTER_FAIL_AT=N fails the first
attempt of every task once N steps are saved (a retry must then go on from N). Each start appends
"<task> <attempt> <first step>" to COUNTER_LOG, so the test sees where every attempt began.
Results: steps (the last step) and resumed_from (the step the finishing attempt began at)."""
import os
import time

import shardrun

STEPS = int(os.environ.get("COUNTER_STEPS", "30"))
STEP_SECONDS = float(os.environ.get("COUNTER_STEP_SECONDS", "0.1"))
FAIL_AT = int(os.environ.get("COUNTER_FAIL_AT", "0"))


def count(task):
    folder = shardrun.checkpoint_dir()
    assert folder == task.checkpoint_dir, (folder, task.checkpoint_dir)
    state = os.path.join(folder, "step")
    step = int(open(state).read()) if os.path.exists(state) else 0
    first = step
    with open(os.environ["COUNTER_LOG"], "a") as log:
        log.write(f"{task.task_id} {task.attempt} {first}\n")
    while step < STEPS:
        time.sleep(STEP_SECONDS)
        step += 1
        with open(state + ".tmp", "w") as f:
            f.write(str(step))
        os.replace(state + ".tmp", state)  # a kill between steps leaves the last whole step
        if FAIL_AT and step == FAIL_AT and task.attempt == 1:
            raise RuntimeError(f"failing attempt 1 at step {step} on purpose")
    shardrun.result(steps=step, resumed_from=first)


if os.environ.get("COUNTER_WORKER"):
    for task in shardrun.tasks():
        with task:
            count(task)
else:
    count(shardrun.task())
