"""A worker for worker_startup_test: STARTUP_CASE picks how it starts and answers.

  stdout_ready:  prints its ready line on stdout (the natural first attempt), then waits on stdin
  stdout_answer: ready on $SHARDRUN_ANSWER_FD, but prints every answer on stdout
  slow_load:     sleeps STARTUP_LOAD seconds (a model load), writes the unix time it became ready
                 to $STARTUP_READY_DIR/<rank>, then answers properly
"""
import json
import os
import sys
import time

CASE = os.environ["STARTUP_CASE"]

if CASE == "stdout_ready":
    print(json.dumps({"ready": True}))
    for _line in sys.stdin:
        pass
    sys.exit(0)

answers = os.fdopen(int(os.environ["SHARDRUN_ANSWER_FD"]), "w", buffering=1)
if CASE == "slow_load":
    time.sleep(float(os.environ["STARTUP_LOAD"]))
    with open(os.path.join(os.environ["STARTUP_READY_DIR"], os.environ["SHARDRUN_RANK"]), "w") as f:
        f.write(repr(time.time()))
answers.write(json.dumps({"ready": True}) + "\n")
for line in sys.stdin:
    task = json.loads(line)
    answer = json.dumps({"task_id": task["task_id"], "status": "ok", "results": {"v": float(task["task_id"])}})
    if CASE == "stdout_answer":
        print(answer)
    else:
        answers.write(answer + "\n")
