"""A run that gives up on its failures (issue 23, point 4): max_failures / --max-failures, and the
default fail_fast (the first 5 tasks all failed with one exit code). It drains: no new task, the
finished ones are committed, exit 1, and the summary names the reason. Both count across the
job's ranks (issue 35, point 6): a job stops after fail_fast (or max_failures) tasks plus the
ones already running, whatever the rank count."""
import json
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

MISSPELLED = """
task: exec
sweep: {a: {range: [0, TASKS, 1]}}
exec:
  argv: [./no-such-program-pyhton, "{a}"]
output: {path: OUT}
EXTRA
"""

# Odd tasks fail (exit 1), even ones succeed: fail_fast never fires, max_failures does.
HALF = """
task: exec
sweep: {a: {range: [0, 20, 1]}}
schedule: block
exec:
  argv: [sh, -c, 'test $((SHARDRUN_PARAM_A % 2)) -eq 0']
output: {path: OUT}
EXTRA
"""

# Every task fails with one of three codes: fail_fast (one code) never fires, max_failures does.
MIXED = """
task: exec
sweep: {a: {range: [0, 400, 1]}}
exec:
  argv: [sh, -c, 'exit $((SHARDRUN_PARAM_A % 3 + 1))']
output: {path: OUT}
fail_fast: false
"""

# Slow failures: several ranks see the job-wide count before they run out of tasks.
SLOW = """
task: exec
sweep: {a: {range: [0, 40, 1]}}
exec:
  argv: [sh, -c, 'sleep 0.2; exit 3']
output: {path: OUT}
"""


def lines(text):
    """Our lines (mpirun adds its banner after a non-zero exit; issue 23, point 13)."""
    return [line for line in text.splitlines() if line.startswith("shardrun:")]


def started_tasks(output):
    """How many tasks of the output ever started: those with an attempt recorded."""
    with h5py_module().File(output, "r") as f:
        return int((f["tasks/attempts"][:] > 0).sum())


def status(output):
    proc = run(["status", output, "--json"])
    return json.loads(proc.stdout)


class FailureBudgetTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "results", "job.h5")

    def job(self, text, tasks=12, extra=""):
        return write_job(self.work, text.replace("TASKS", str(tasks)).replace("EXTRA", extra).replace("OUT", self.out))

    def test_misspelled_program_stops_after_five_by_default(self):
        for np in (None, 2):
            with self.subTest(np=np):
                job = self.job(MISSPELLED)

                proc = run(["run", job, "--force"], np=np)

                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertIn("stopped after the first", proc.stdout)
                self.assertIn("all failed with exit code 127 (program not found; fail_fast: 5", proc.stdout)
                counts = status(self.out)
                self.assertGreaterEqual(counts["failed"], 5)
                self.assertLess(counts["failed"], 12, "fail_fast let every task run")
                self.assertEqual(counts["ok"], 0)
                self.assertEqual(counts["failed"] + counts["pending"], 12)

    def test_fail_fast_counts_across_the_job_whatever_the_rank_count(self):
        # Issue 35, point 6: each rank used to count its own 5 (30 tasks at -np 6, 1,280 at 256).
        # Every rank reads the job-wide tally before each task it starts, so at most the 5 and
        # the tasks already running on the other ranks start (README, "Giving up on failures").
        for np in (1, 2, 6):
            with self.subTest(np=np):
                job = self.job(MISSPELLED, tasks=400)

                proc = run(["run", job, "--force"], np=np)

                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertIn("stopped after the first", proc.stdout)
                self.assertIn("tasks to finish across the job all failed with exit code 127 (program not found; "
                              "fail_fast: 5", proc.stdout)
                started = started_tasks(self.out)
                self.assertLessEqual(started, 5 + np - 1, proc.stdout)
                self.assertGreaterEqual(started, 5)
                counts = status(self.out)
                self.assertEqual((counts["ok"], counts["failed"]), (0, started))
                self.assertEqual(counts["pending"], 400 - started)

    def test_max_failures_counts_across_the_job(self):
        job = write_job(self.work, MIXED.replace("OUT", self.out))

        proc = run(["run", job, "--max-failures", "8"], np=6)

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("failed tasks (max_failures: 8) across the job", proc.stdout)
        started = started_tasks(self.out)
        self.assertGreaterEqual(started, 8)
        self.assertLessEqual(started, 8 + 6 - 1, "each rank counted its own failures")
        self.assertEqual(status(self.out)["failed"], started)

    def test_a_missing_program_is_not_retried(self):
        # Issue 35, point 6: exit 127 (not found) and 126 (cannot execute) fail the same way on every attempt.
        job = self.job(MISSPELLED, extra="retries: 2\nfail_fast: false")

        proc = run(["run", job, "-q"])

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        with h5py_module().File(self.out, "r") as f:
            self.assertEqual(f["tasks/attempts"][:].tolist(), [1] * 12)
            self.assertEqual(f["tasks/exit_code"][:].tolist(), [127] * 12)

    def test_quiet_run_still_says_why_it_stopped(self):
        job = self.job(MISSPELLED)

        proc = run(["run", job, "-q"])

        self.assertEqual(proc.returncode, 1)
        self.assertEqual(lines(proc.stderr), [l for l in lines(proc.stderr) if "stopped after the first 5" in l])
        self.assertEqual(len(lines(proc.stderr)), 1, proc.stderr)

    def test_fail_fast_false_runs_every_task(self):
        job = self.job(MISSPELLED, extra="fail_fast: false")

        proc = run(["run", job, "-q"])

        self.assertEqual(proc.returncode, 1)
        self.assertEqual(status(self.out)["failed"], 12)

    def test_max_failures_drains_and_keeps_what_finished(self):
        for np, args in ((None, ["--max-failures", "3"]), (2, ["--set", "max_failures=3"])):
            with self.subTest(np=np):
                job = self.job(HALF)

                proc = run(["run", job, "--force", *args], np=np)

                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertIn("stopped after", proc.stdout)
                self.assertIn("failed tasks (max_failures: 3)", proc.stdout)
                counts = status(self.out)
                self.assertGreaterEqual(counts["failed"], 3)
                self.assertGreater(counts["ok"], 0, "the successful tasks were not kept")
                self.assertGreater(counts["pending"], 0, "max_failures let every task run")

    def test_a_rank_that_did_not_fail_stops_too(self):
        job = self.job(SLOW.replace("OUT", self.out))

        proc = run(["run", job, "-q", "--max-failures", "4"], np=4)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        counts = status(self.out)
        self.assertGreater(counts["pending"], 0, "the other ranks kept taking tasks")
        self.assertEqual(counts["ok"], 0)

    def test_bad_values_are_one_line_and_exit_2(self):
        cases = [("max_failures: 0", [], "max_failures"), ("fail_fast: maybe", [], "fail_fast"),
                 ("", ["--max-failures", "x"], "max_failures")]
        for extra, args, field in cases:
            with self.subTest(extra=extra, args=args):
                job = self.job(MISSPELLED, extra=extra)

                proc = run(["run", job, *args])

                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(lines(proc.stderr)), 1, proc.stderr)
                self.assertIn(field, proc.stderr)
                self.assertFalse(os.path.exists(os.path.dirname(self.out)), "bad input wrote output")


if __name__ == "__main__":
    unittest.main()
