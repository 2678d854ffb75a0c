"""A persistent exec worker for the worker-mode tests, built on scripts/shardrun_worker.py.

Each start appends a line to $WORKER_STARTS. Misbehaviour on purpose, chosen by environment:
WORKER_KILL_TASK (SIGKILL itself on that task's first attempt), WORKER_POISON_TASK (SIGKILL itself
on every attempt of that task), WORKER_HANG_TASK (never answer),
WORKER_MALFORMED_TASK (an answer whose result is not a number), WORKER_DIE_ALWAYS (exit on any
task), WORKER_SLOW_START (seconds before the ready line), WORKER_SLEEP (seconds per task).
"""
import os
import signal
import sys
import time

sys.path.insert(0, os.environ["WORKER_SCRIPTS"])  # scripts/ (SHARDRUN_* variables are not inherited)
import shardrun_worker  # noqa: E402


def task_env(name):
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else None


def main():
    with open(os.environ["WORKER_STARTS"], "a") as f:
        f.write(f"{os.environ['SHARDRUN_RANK']} {os.getpid()}\n")
    time.sleep(float(os.environ.get("WORKER_SLOW_START", "0")))
    print(f"worker {os.getpid()} loaded", flush=True)
    for task in shardrun_worker.tasks():
        print(f"task {task.task_id} attempt {task.attempt}", file=sys.stderr, flush=True)
        time.sleep(float(os.environ.get("WORKER_SLEEP", "0")))
        if os.environ.get("WORKER_DIE_ALWAYS"):
            print("dying on purpose", file=sys.stderr, flush=True)
            os._exit(7)
        if task.task_id == task_env("WORKER_KILL_TASK") and task.attempt == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        if task.task_id == task_env("WORKER_POISON_TASK"):
            os.kill(os.getpid(), signal.SIGKILL)
        if task.task_id == task_env("WORKER_HANG_TASK"):
            print(f"hanging on task {task.task_id}", file=sys.stderr, flush=True)
            time.sleep(3600)
        if task.task_id == task_env("WORKER_MALFORMED_TASK"):
            shardrun_worker.answer({"task_id": task.task_id, "status": "ok", "results": {"v": "oops"}})
            continue
        a = task.params["a"]
        with task:
            task.done({"v": 2.0 * a, "vec": [a, a + 1, task.attempt], "pid": os.getpid()})


if __name__ == "__main__":
    main()
