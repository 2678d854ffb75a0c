"""A stop at the very start of a cloud element (a Spot reclaim, a preempted VM: the entrypoint gets
SIGTERM) is retried and loses nothing; found by a new-user trial of the cloud tutorials.

The generated job files of cloud_jobs_test.py (the same submitted project, its CloudJobsBase), each
element run as the service would (tests/cloud/element_runner.py), the bucket moto's S3 or the GCS
emulator:
- AWS, stopped before any task finished (every task of element 1 sleeps; SIGTERM once they run, so
  shardrun's drain handler is in place): shardrun says NO PROGRESS (4, a time-limit notion), but the
  element exits 3, which AWS retries (attempt 1 of 5 is not the last); the retry resumes, the merge job
  merges everything.
- AWS, stopped after every task was done: exit 0, and no line promises exit 3.
- Google, SIGTERM while the ranks are still starting (the rank program is a wrapper that waits before
  it becomes shardrun, so the forwarded SIGUSR1 kills it: mpirun exits 138): the task exits 3 (retried)
  without merging; on its last attempt the same stop merges and names it as started and stopped, not as
  never started."""
import glob
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloud_jobs_test as cloud_jobs  # noqa: E402  (its test classes stay there: unittest runs this module's)
import cloud_servers  # noqa: E402
from harness import scratch_dir  # noqa: E402

# square.sh X: y = X * X. SLOW=all: every task sleeps; a task about to sleep leaves $STARTED.X first,
# which tells the test that shardrun (and its drain handler) is running tasks.
SQUARE = """#!/bin/sh
if [ "${SLOW:-}" = all ]; then
    [ -n "${STARTED:-}" ] && touch "$STARTED.$1"
    sleep 1000
fi
printf '{"y": %d}' $(($1 * $1)) > "$SHARDRUN_RESULT"
"""
# SHARDRUN_BIN for `run`: leaves $MARK.<rank>, then waits 30 s before it becomes shardrun. A SIGUSR1 in
# that time kills it (no handler yet), as it kills a shardrun rank stopped before its handler is in place.
SLOW_START = """#!/bin/bash
if [ "$1" = run ]; then
    touch "$MARK.$OMPI_COMM_WORLD_RANK"
    sleep 30 </dev/null >/dev/null 2>&1 &
    wait $!
fi
exec shardrun "$@"
"""
# SHARDRUN_BIN for `run`: shardrun, then $MARK.<rank> and 60 s before the rank ends (SIGUSR1 ends it at
# once with shardrun's code): a SIGTERM to the entrypoint after every task was done.
SLOW_END = """#!/bin/bash
status=0 sleeper=
trap '[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null; exit $status' USR1
shardrun "$@"
status=$?
[ "$1" = run ] || exit $status
touch "$MARK.$OMPI_COMM_WORLD_RANK"
sleep 60 </dev/null >/dev/null 2>&1 &
sleeper=$!
wait "$sleeper"
exit $status
"""
RANKS = 2  # submit --ranks-per-node 2 (CloudJobsBase)


class StopBase(cloud_jobs.CloudJobsBase):
    square = SQUARE

    def start(self, name, command, variables):
        # Names of its own: cleanup kills by SHARDRUN_TEST_MACHINE=<name>, which cloud_jobs_test's a0-1... share.
        return super().start("stop-" + name, command, variables)

    def wrapper(self, text):
        """A SHARDRUN_BIN script and the prefix of the marks its ranks leave."""
        folder = scratch_dir(self)
        path = os.path.join(folder, "shardrun-wrapper")
        cloud_jobs.write(path, text, 0o755)
        return path, os.path.join(folder, "mark")

    def wait_for_marks(self, handle, prefix, count):
        deadline = time.time() + 120
        while len(glob.glob(prefix + ".*")) < count:
            self.assertIsNone(handle[0].poll(), f"the element ended before {count} marks {prefix}.*")
            self.assertLess(time.time(), deadline, f"fewer than {count} marks {prefix}.* after 120 s")
            time.sleep(0.1)

    def stopped(self, name, command, variables, prefix, count, expected):
        """Runs the element, SIGTERMs it once `count` marks are there; its exit code must be `expected`."""
        handle = self.start(name, command, variables)
        self.wait_for_marks(handle, prefix, count)
        self.runner().terminate(handle)
        out, err = self.finish(handle, expected)
        self.assertIn("SIGTERM: draining", err)
        self.assertNotIn("before shardrun could say why", err, "shardrun said why")
        return out, err


class AwsStopTest(StopBase, unittest.TestCase):
    target, backend, count = "aws-batch", "s3", 3

    def setUp(self):
        super().setUp()
        self.definition = json.loads(self.generated()["array-job.json"])["containerProperties"]
        self.command = self.definition["command"]

    element = cloud_jobs.AwsBatchJobsTest.element

    def test_stop_before_any_task_finished_is_retried_and_resumed(self):
        for index in (0, 2):
            name, variables = self.element(self.definition, index, 1)
            self.finish(self.start(name, self.command, variables), 0)
        name, variables = self.element(self.definition, 1, 1)
        self.assertEqual(variables["SHARDRUN_ATTEMPTS"], "5")
        started = os.path.join(scratch_dir(self), "started")
        _, err = self.stopped(name, self.command, {**variables, "SLOW": "all", "STARTED": started}, started, RANKS, 3)
        self.assertIn("NO PROGRESS", err)  # shardrun's own verdict (4), which the entrypoint turns into 3
        self.assertIn("exit 3 (interrupted), which the service retries", err)
        self.assertIn("(attempt 1 of 5)", err)
        self.assertNotIn(", the last)", err)
        self.assertNotIn("exiting 0", err, "exit 0 would end the element: AWS retries exit 3 only")
        name, variables = self.element(self.definition, 1, 2)  # AWS's retry on another host resumes
        out, _ = self.finish(self.start(name, self.command, variables), 0)
        self.assertIn("array element 1 of 3 finished", out)
        merge = json.loads(self.generated()["merge-job.json"])["containerProperties"]
        out, err = self.finish(self.start("merge", merge["command"],
                                          {e["name"]: e["value"] for e in merge["environment"]}), 0)
        self.assertIn("merged 3 of 3 array element(s)", out)
        self.assertNotIn("MERGE INCOMPLETE", err)
        self.check_master()

    def test_stop_after_every_task_exits_0_and_says_so(self):
        name, variables = self.element(self.definition, 0, 1)
        program, marks = self.wrapper(SLOW_END)
        _, err = self.stopped(name, self.command, {**variables, "SHARDRUN_BIN": program, "MARK": marks}, marks, RANKS, 0)
        self.assertNotIn("exit 3", err, "the element exits 0: no line may promise 3")
        self.assertIn("stopped (SIGTERM): shardrun exited 0 (every task had finished)", err)


class GcpStopTest(StopBase, unittest.TestCase):
    target, backend, count = "gcp-batch", "gcs", 2

    task = cloud_jobs.GcpBatchJobsTest.task

    def test_stop_while_ranks_start_is_retried_and_named_right_on_the_last_attempt(self):
        spec = json.loads(self.generated()["job.json"])["taskGroups"][0]["taskSpec"]
        container = spec["runnables"][0]["container"]
        command = [container["entrypoint"], *container["commands"]]
        program, marks = self.wrapper(SLOW_START)
        name, variables = self.task(spec, 1, 0)
        _, err = self.stopped(name, command, {**variables, "SHARDRUN_BIN": program, "MARK": marks}, marks, RANKS, 3)
        self.assertIn("SIGUSR1 ended them before shardrun could drain (mpirun exited 138)", err)
        self.assertIn("(attempt 1 of 5)", err)
        self.assertNotIn("merg", err.lower(), "a task that is retried is not final: it neither merges nor waits")
        self.assertEqual(self.store.keys(self.prefix + ".submit/gcp-batch/final/"), [], "no final marker")
        name, variables = self.task(spec, 0, 0)
        _, err = self.finish(self.start(name, command, variables), 0)
        self.assertIn("1 of 2 are; the last to finish merges", err)
        # Task 1's last attempt, stopped the same way: final, it merges what there is and names itself right.
        last = int(variables["SHARDRUN_ATTEMPTS"]) - 1
        name, variables = self.task(spec, 1, last)
        for mark in glob.glob(marks + ".*"):
            os.remove(mark)
        _, err = self.stopped(name, command, {**variables, "SHARDRUN_BIN": program, "MARK": marks}, marks, RANKS, 3)
        self.assertIn(f"(attempt {last + 1} of {last + 1}, the last)", err)
        self.assertIn("MERGE INCOMPLETE", err)
        self.assertNotIn("never started: 1", err, "task 1 started")
        self.assertIn("array element 1 started, and was stopped (SIGTERM) on its last attempt before any task "
                      "finished", err)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcpStopTest
    elif backend == "gcs":
        del AwsStopTest
    unittest.main(verbosity=2)
