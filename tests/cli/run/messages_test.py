"""Messages a user reads (issue 11, points 13-15): a usage error is one line that points at
--help; a failed task's summary line carries the tail of its stderr; progress shows the tasks
that are running while they run."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import SHARDRUN, clean_env, run, scratch_dir, wait_for_task_running
from jobs import write_job


class UsageErrorsTest(unittest.TestCase):
    def test_each_usage_error_is_one_line_pointing_at_help(self):
        work = scratch_dir()
        job = write_job(work, f"name: ok\ntask: noop\noutput: {{path: {work}/ok.h5}}\n")
        cases = [(["run", job, "--array-index", "-1"], "shardrun run --help"),
                 (["run", job, "--progress", "bogus"], "shardrun run --help"),
                 (["plan", job, "--ranks", "0"], "shardrun plan --help"),
                 (["status", "--no-such-option"], "shardrun status --help")]
        for args, pointer in cases:
            with self.subTest(args=args):
                proc = run(args)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
                self.assertTrue(proc.stderr.startswith("shardrun: "), proc.stderr)
                self.assertIn(f"(see {pointer})", proc.stderr)
        self.assertEqual(sorted(os.listdir(work)), ["job.yaml"], "a usage error wrote something")


    def test_a_usage_error_under_mpirun_is_printed_once(self):
        # Every rank parses the same command line before MPI_Init; only rank 0 may say so
        # (issue 23, point 12: it was one line per rank, interleaved).
        work = scratch_dir()
        job = write_job(work, f"name: ok\ntask: noop\noutput: {{path: {work}/ok.h5}}\n")
        for np in (2, 4):
            for args in (["run", job, "--bogus"], ["run", job, "--resume", "--force"]):
                with self.subTest(np=np, args=args[2:]):
                    proc = run(args, np=np)

                    self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                    ours = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
                    self.assertEqual(len(ours), 1, proc.stderr)
                    self.assertIn("(see shardrun run --help)", ours[0])
        self.assertEqual(sorted(os.listdir(work)), ["job.yaml"], "a usage error wrote something")

    def test_an_abbreviated_option_is_refused_with_the_full_name(self):
        # Issue 35, point 2: Boost took `--f` and `--fo` for --force, which deleted a finished output.
        work = scratch_dir()
        out = f"{work}/ok.h5"
        job = write_job(work, f"name: ok\ntask: noop\nsweep: {{a: [1, 2]}}\noutput: {{path: {out}}}\n")
        self.assertEqual(run(["run", job, "-q"]).returncode, 0)
        before = (os.stat(out).st_mtime_ns, sorted(os.listdir(work)))
        cases = [("--f", "(did you mean --force?)"), ("--fo", "(did you mean --force?)"),
                 ("--resum", "(did you mean --resume?)"), ("--forse", "(did you mean --force?)")]
        for np in (1, 4):
            for option, hint in cases:
                with self.subTest(np=np, option=option):
                    proc = run(["run", job, option], np=np)

                    self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                    ours = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
                    self.assertEqual(len(ours), 1, proc.stderr)
                    self.assertIn(f"unrecognised option '{option}' {hint}; options are spelled in full", ours[0])
        self.assertEqual((os.stat(out).st_mtime_ns, sorted(os.listdir(work))), before, "an abbreviation touched the output")

    def test_a_misspelt_command_under_mpirun_is_printed_once_whole(self):
        for np in (1, 4):
            with self.subTest(np=np):
                proc = run(["rnu", "job.yaml"], np=np)

                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                ours = [line for line in proc.stderr.splitlines() if "shardrun:" in line]
                self.assertEqual(len(ours), 1, proc.stderr)
                self.assertTrue(ours[0].startswith("shardrun: unknown command 'rnu' (did you mean 'run'?); the commands are run, "),
                                ours[0])

    def test_a_command_in_the_wrong_case_is_suggested(self):
        for typed, meant in (("RUN", "run"), ("Status", "status")):
            with self.subTest(typed=typed):
                proc = run([typed, "x.h5"])

                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(f"unknown command '{typed}' (did you mean '{meant}'?)", proc.stderr)

    def test_a_held_lock_names_its_holder(self):
        # Issue 35, point 11: "the lock is held" did not say by whom.
        work = scratch_dir()
        job = write_job(work, f"name: held\ntask: exec\nsweep: {{a: [1]}}\nexec: {{argv: [sleep, '60']}}\n"
                              f"output: {{path: {work}/held.h5}}\n")
        first = subprocess.Popen([SHARDRUN, "run", job, "-q"], env=clean_env(), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            wait_for_task_running(os.path.join(work, "held.h5"), 0, 30)
            second = run(["run", job, "-q"])
        finally:
            first.send_signal(signal.SIGTERM)
            first.communicate(timeout=60)
        self.assertEqual(second.returncode, 2, second.stderr)
        self.assertRegex(second.stderr, rf"is being written by another shardrun run \(lock \S+ is held by pid {first.pid} "
                                        r"on \S+ since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)")


class FailedTaskSummaryTest(unittest.TestCase):
    def test_the_summary_line_of_a_failed_task_ends_with_its_last_stderr_line(self):
        work = scratch_dir()
        job = write_job(work, f"""
name: fail
task: exec
sweep: {{a: [1, 2]}}
exec:
  argv: [sh, -c, 'echo chatter; echo "first complaint" >&2; echo "boom: no input for a={{a}}" >&2; exit 3']
output: {{path: {work}/fail.h5}}
""")
        proc = run(["run", job, "--progress", "plain"])
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("failed #0: exit 3: exited with status 3: boom: no input for a=1", proc.stdout)
        self.assertIn("failed #1: exit 3: exited with status 3: boom: no input for a=2", proc.stdout)


class RunningProgressTest(unittest.TestCase):
    def test_progress_counts_tasks_while_they_run(self):
        work = scratch_dir()
        job = write_job(work, f"""
name: slow
task: exec
sweep: {{a: [1, 2]}}
exec:
  argv: [sleep, "1.5"]
output: {{path: {work}/slow.h5}}
""")
        proc = run(["run", job, "--progress", "json", "--progress-interval", "0.2"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        events = [json.loads(line) for line in (proc.stdout + proc.stderr).splitlines()
                  if line.startswith('{"event":"progress"')]
        self.assertTrue(events, proc.stdout + proc.stderr)
        self.assertEqual(max(event["running"] for event in events), 2,
                         "no progress event showed the two tasks running")
        self.assertEqual(events[-1]["running"], 0)


if __name__ == "__main__":
    unittest.main()
