"""What a cloud element stopped at its start says, as new users met it following the cloud tutorials
(issue 39's trials). The generated job files of cloud_jobs_test.py, each element run as the service
would (element_runner.py), stopped as cloud_stop_test.py stops them:
- stopped before any task finished (every task sleeps; SIGTERM once they run): shardrun's NO PROGRESS
  advice names the service's own time limit (AWS Batch: the job definition's
  timeout.attemptDurationSeconds; Google Batch: maxRunDuration), not Slurm's --time;
- AWS, stopped while its ranks start on its last attempt (nothing of it in the bucket), then the
  merge job, another container: merge names that element as started and stopped before any task
  finished, and only the element that never ran as never started; so does `status` on the bucket."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloud_jobs_test as cloud_jobs  # noqa: E402  (its test classes stay there: unittest runs this module's)
import cloud_servers  # noqa: E402
import cloud_stop_test as stop  # noqa: E402
from harness import run, scratch_dir  # noqa: E402


class AdviceBase(stop.StopBase):
    def start(self, name, command, variables):
        # Names of its own (cleanup kills by SHARDRUN_TEST_MACHINE=<name>): not cloud_stop_test's, run beside it.
        return super().start(f"msg{os.getpid()}-{name}", command, variables)

    def stop_before_any_task_finished(self, name, command, variables):
        """The element with every task asleep, SIGTERMed once each rank runs one: exit 3; its stdout."""
        started = os.path.join(scratch_dir(self), "started")
        out, _ = self.stopped(name, command, {**variables, "SLOW": "all", "STARTED": started}, started, stop.RANKS, 3)
        self.assertIn("NO PROGRESS: no task finished in this run", out)
        self.assertNotIn("Slurm", out, "no Slurm here: its --time is no advice")
        return out


class AwsStopMessagesTest(AdviceBase, unittest.TestCase):
    target, backend, count = "aws-batch", "s3", 3

    element = cloud_jobs.AwsBatchJobsTest.element

    def setUp(self):
        super().setUp()
        self.definition = json.loads(self.generated()["array-job.json"])["containerProperties"]
        self.command = self.definition["command"]

    def test_no_progress_advice_names_the_job_definitions_timeout(self):
        name, variables = self.element(self.definition, 1, 1)
        out = self.stop_before_any_task_finished(name, self.command, variables)
        self.assertIn("give the job more time (AWS Batch: the job definition's timeout.attemptDurationSeconds, "
                      "which shardrun submit --time sets)", out)

    def test_merge_job_names_an_element_stopped_while_starting_as_started(self):
        name, variables = self.element(self.definition, 0, 1)
        self.finish(self.start(name, self.command, variables), 0)
        # Element 1's last attempt, stopped while its ranks start: final, it exits 0 for the merge job's sake.
        last = int(variables["SHARDRUN_ATTEMPTS"])
        name, variables = self.element(self.definition, 1, last)
        program, marks = self.wrapper(stop.SLOW_START)
        _, err = self.stopped(name, self.command, {**variables, "SHARDRUN_BIN": program, "MARK": marks}, marks,
                              stop.RANKS, 0)
        self.assertIn("SIGUSR1 ended them before shardrun could drain (mpirun exited 138)", err)
        self.assertIn(f"(attempt {last} of {last}, the last)", err)
        self.assertEqual([key for key in self.store.keys(self.prefix + ".shards/") if "/a1/" in key], [],
                         "nothing of element 1 in the bucket: only its note tells it started")
        # Element 2 never runs. The merge job, in a container of its own, knows only the bucket.
        merge = json.loads(self.generated()["merge-job.json"])["containerProperties"]
        out, err = self.finish(self.start("merge", merge["command"],
                                          {e["name"]: e["value"] for e in merge["environment"]}), 1)
        self.assertIn("merged 1 of 3 array element(s)", out)
        self.assertIn("shardrun: array elements never started: 2;", err)
        self.assertIn("shardrun: array element 1 started, and was stopped (SIGTERM) on its last attempt before any "
                      "task finished: nothing of it was committed; run it (--array-index 1), then merge again", err)
        self.assertIn("MERGE INCOMPLETE", err)
        # status, from a laptop that sees only the bucket, says the same of element 1 as merge.
        laptop = scratch_dir(self)
        home = {"HOME": laptop, "TMPDIR": laptop}
        text = run(["status", self.url], env={**self.store.env(), **home})
        self.assertEqual(text.returncode, 3, text.stdout + text.stderr)  # not complete: elements 1 and 2 missing
        self.assertIn("missing array elements: 1,2", text.stdout)
        self.assertIn("array element 1 started, and was stopped (SIGTERM) on its last attempt before any task "
                      "finished: nothing of it was committed; run it (--array-index 1), then merge", text.stdout)
        self.assertNotIn("array element 2 started", text.stdout)
        report = json.loads(run(["status", self.url, "--json"], env={**self.store.env(), **home}).stdout)
        self.assertEqual(list(report["stopped_elements"]), ["1"])


class GcpStopMessagesTest(AdviceBase, unittest.TestCase):
    target, backend, count = "gcp-batch", "gcs", 2

    task = cloud_jobs.GcpBatchJobsTest.task

    def test_no_progress_advice_names_the_tasks_max_run_duration(self):
        spec = json.loads(self.generated()["job.json"])["taskGroups"][0]["taskSpec"]
        container = spec["runnables"][0]["container"]
        name, variables = self.task(spec, 1, 0)
        out = self.stop_before_any_task_finished(name, [container["entrypoint"], *container["commands"]], variables)
        self.assertIn("give the job more time (Google Batch: the task's maxRunDuration, which shardrun submit --time "
                      "sets)", out)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcpStopMessagesTest
    elif backend == "gcs":
        del AwsStopMessagesTest
    unittest.main(verbosity=2)
