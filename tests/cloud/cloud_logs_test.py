"""Issue 34, point 4: task logs kept on the cloud. A 2-rank run writes to moto's S3 or the GCS emulator
(CLOUD_BACKEND=s3|gcs; ctest runs each as its own entry) with no shared file system, as a container runs
an array element: task 2 prints 30 stderr lines and fails (both attempts), task 4 fails after printing
3 MiB, task 5 fails its first attempt only, tasks 6..15 fail with one line, the others succeed (one
of them writing to stderr). Then, from a fresh scratch folder that sees only the bucket:
  - the bucket holds the failed attempts' stdout/stderr (not the ok attempts') beside the segments;
  - `logs URL 2 --stderr` prints task 2's 30 lines, `--attempt 1` the first attempt's;
  - `status URL --json` has the failed task's `logs` and `stderr_tail`;
  - the huge stderr is cut to its tail, its first line saying how many bytes were cut;
  - the run's own stderr (the container's log: CloudWatch, Cloud Logging) ends with each failed task's
    reason and its last stderr lines, at most 10 tasks, then "and N more";
  - the readers leave nothing in their scratch folder.
Also: `run --force` deletes an earlier run's task logs in the bucket, and an exec worker's failed task
keeps its worker log's tail (and the rank's worker log) in the bucket."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import SOURCE_DIR, run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

TASKS = 16
HUGE = 3 * 1024 * 1024  # bytes task 4 writes to stderr: more than the 1 MiB kept per stream
PROGRAM = """\
import os, sys
a = int(os.environ["SHARDRUN_PARAM_A"])
attempt = int(os.environ["SHARDRUN_ATTEMPT"])
if a == 2:
    print(f"task 2 stdout attempt {attempt}")
    for k in range(1, 31):
        print(f"task 2 attempt {attempt} line {k}", file=sys.stderr)
    raise SystemExit(f"task 2 gives up on attempt {attempt}")
if a == 4:
    line = "x" * 99 + "\\n"
    sys.stderr.write(line * (%(huge)d // 100))
    sys.stderr.write("the last line of task 4\\n")
    sys.exit(4)
if a == 5 and attempt == 1:
    print("task 5 is flaky", file=sys.stderr)
    sys.exit(5)
if a >= 6:
    print(f"quiet failure {a}", file=sys.stderr)
    sys.exit(6)
if a == 0:
    print("task 0 is fine", file=sys.stderr)
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    f.write('{"v": %%d}' %% a)
""" % {"huge": HUGE}
JOB = """\
name: logs
task: exec
sweep: {{a: {{range: [0, {tasks}, 1]}}}}
retries: 1
exec:
  argv: [/usr/bin/python3, {program}]
  results: {{v: float64}}
"""

SMALL_JOB = """\
name: small
task: exec
sweep: {{a: [0, 1]}}
exec:
  argv: [sh, -c, 'echo "task $SHARDRUN_PARAM_A says {code}" >&2; exit {code}']
"""

WORKER_JOB = """\
name: worker
task: exec
sweep: {{a: [0, 1, 2, 3]}}
exec:
  mode: worker
  argv: [/usr/bin/python3, {program}]
  env:
    WORKER_STARTS: {work}/starts
    WORKER_SCRIPTS: {scripts}
    WORKER_POISON_TASK: '2'
  results: {{v: float64, vec: [float64, 3], pid: int64}}
"""


class CloudLogsBase:
    backend = None

    @classmethod
    def setUpClass(cls):
        """One run for every check below (it takes a while on 2 shared cores)."""
        cls.work = scratch_dir()
        cls.store = (cloud_servers.S3 if cls.backend == "s3" else cloud_servers.GCS)(cls.work)
        try:
            program = os.path.join(cls.work, "program.py")
            with open(program, "w") as f:
                f.write(PROGRAM)
            job = write_job(cls.work, JOB.format(tasks=TASKS, program=program))
            cls.prefix = "runs/logs.h5"
            cls.url = cls.store.url(cls.prefix)
            scratch = scratch_dir()
            # -q as the cloud entrypoint runs mpirun: Open MPI's own note on a non-zero exit would come last.
            cls.run_result = run(["run", job, "--set", f"output.path={cls.url}"], np=2, env=cls.env(scratch),
                                 extra_mpi=("-q",))
            cloud_servers.kill_processes_with_env(f"SHARDRUN_SCRATCH={scratch}")
        except BaseException:
            cls.store.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.store.stop()

    @classmethod
    def env(cls, scratch):
        return {**cls.store.env(), "SHARDRUN_SCRATCH": scratch, "SHARDRUN_UPLOAD_INTERVAL": "0.3"}

    def reader_env(self):
        """A fresh machine (a laptop) that sees only the bucket; checked empty at the end of the test."""
        scratch = scratch_dir(self)
        self.addCleanup(lambda: self.assertEqual(os.listdir(scratch), [], "the readers' copies were not removed"))
        return self.env(scratch)

    def test_run_failed_with_exit_1(self):
        self.assertEqual(self.run_result.returncode, 1, self.run_result.stdout + self.run_result.stderr)

    def test_failed_attempts_logs_are_in_the_bucket(self):
        keys = [key[len(self.prefix):] for key in self.store.keys(self.prefix + ".tasks/")]
        for name in (".tasks/2/stderr.1", ".tasks/2/stderr.2", ".tasks/2/stdout.1", ".tasks/2/stdout.2",
                     ".tasks/2/stderr", ".tasks/4/stderr.1", ".tasks/4/stderr.2", ".tasks/5/stderr.1",
                     ".tasks/6/stderr.2"):
            self.assertIn(name, keys)
        # An ok attempt's output stays on the machine (exec.keep_files is off).
        self.assertNotIn(".tasks/0/stderr.1", keys)
        self.assertFalse([key for key in keys if key.startswith(".tasks/5/") and key.endswith(".2")], keys)
        self.assertFalse([key for key in keys if "scratch" in key or "running" in key], keys)

    def test_logs_prints_the_failed_tasks_stderr_from_the_bucket(self):
        env = self.reader_env()

        latest = run(["logs", self.url, "2", "--stderr"], env=env)
        first = run(["logs", self.url, "2", "--stderr", "--attempt", "1"], env=env)
        stdout = run(["logs", self.url, "2"], env=env)

        self.assertEqual(latest.returncode, 0, latest.stdout + latest.stderr)
        lines = latest.stdout.splitlines()
        self.assertEqual(lines[:30], [f"task 2 attempt 2 line {k}" for k in range(1, 31)])
        self.assertIn("task 2 gives up on attempt 2", latest.stdout)
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(first.stdout.splitlines()[0], "task 2 attempt 1 line 1")
        self.assertEqual(stdout.returncode, 0, stdout.stderr)
        self.assertEqual(stdout.stdout, "task 2 stdout attempt 2\n")

    def test_logs_of_a_task_without_kept_output_says_so(self):
        env = self.reader_env()

        ok_task = run(["logs", self.url, "0", "--stderr"], env=env)
        follow = run(["logs", self.url, "2", "--stderr", "--follow"], env=env)

        self.assertEqual(ok_task.returncode, 1, ok_task.stdout + ok_task.stderr)
        self.assertIn("has no stderr", ok_task.stderr)
        self.assertIn(self.url, ok_task.stderr, "named by its URL, not a scratch copy")
        self.assertNotIn("check the path", ok_task.stderr)
        self.assertEqual(follow.returncode, 2, follow.stdout + follow.stderr)
        self.assertIn("--follow", follow.stderr)

    def test_status_json_has_logs_and_stderr_tail(self):
        env = self.reader_env()

        status = run(["status", self.url, "--json"], env=env)

        self.assertEqual(status.returncode, 1, status.stdout + status.stderr)  # complete, with failed tasks
        report = json.loads(status.stdout)
        failed = {task["task_id"]: task for task in report["failed_tasks"]}
        self.assertEqual(sorted(failed), [2, 4] + list(range(6, TASKS)))
        task = failed[2]
        self.assertEqual(task["stderr_tail"][-1], "task 2 gives up on attempt 2")
        self.assertIn("task 2 attempt 2 line 30", task["stderr_tail"])
        names = [os.path.basename(path) for path in task["logs"]]
        self.assertEqual(names, ["stderr.1", "stderr.2", "stdout.1", "stdout.2"])
        for path in task["logs"]:
            self.assertTrue(path.startswith(self.url + ".tasks/2/"), path)
        self.assertEqual(failed[6]["stderr_tail"], ["quiet failure 6"])

    def test_huge_stderr_is_cut_to_its_tail_and_says_so(self):
        env = self.reader_env()

        huge = run(["logs", self.url, "4", "--stderr"], env=env)

        self.assertEqual(huge.returncode, 0, huge.stderr)
        lines = huge.stdout.splitlines()
        self.assertRegex(lines[0], r"^\[first \d+ bytes cut\]$")
        cut = int(lines[0].split()[1])
        kept = len(huge.stdout.encode()) - len(lines[0]) - 1
        self.assertEqual(cut + kept, HUGE // 100 * 100 + len("the last line of task 4\n"), "cut + kept = what it wrote")
        self.assertLessEqual(kept, 1024 * 1024)
        self.assertGreater(kept, 1024 * 1024 - 200, "the bound is 1 MiB, in whole lines")
        self.assertEqual(lines[1], "x" * 99, "cut at a line's start")
        self.assertEqual(lines[-1], "the last line of task 4")

    def test_run_stderr_ends_with_failed_tasks_and_their_last_lines(self):
        err = self.run_result.stderr

        at = err.rfind("failed tasks' last stderr lines")
        tail = err[at:].splitlines()

        self.assertGreaterEqual(at, 0, err[-3000:])
        text = "\n".join(tail)
        self.assertTrue(tail[1].startswith("  task 2: exited with status 1"), tail[1])
        self.assertIn("task 2 gives up on attempt 2", text)
        self.assertIn("task 2 attempt 2 line 30", text)
        self.assertIn("the last line of task 4", text)
        self.assertIn("quiet failure 6", text)
        self.assertNotIn("quiet failure 14", text, "at most 10 tasks")
        self.assertRegex(tail[-1], r"and 2 more failed tasks")
        self.assertIn(self.url, tail[-1], "says where to read the rest")
        self.assertTrue(len(tail) <= 2 + 10 * 6, tail)

    def test_force_rerun_drops_the_earlier_runs_logs(self):
        """--force starts the output over: an earlier run's task logs in the bucket go, as <output>.tasks/ does locally."""
        prefix = "runs/force.h5"
        url = self.store.url(prefix)
        failing = write_job(self.work, SMALL_JOB.format(code=3), name="failing.yaml")
        passing = write_job(self.work, SMALL_JOB.format(code=0), name="passing.yaml")
        scratch = scratch_dir(self)
        self.addCleanup(cloud_servers.kill_processes_with_env, f"SHARDRUN_SCRATCH={scratch}")
        env = self.env(scratch)

        first = run(["run", failing, "--set", f"output.path={url}", "-q"], np=1, env=env)
        kept = self.store.keys(prefix + ".tasks/")
        second = run(["run", passing, "--set", f"output.path={url}", "-q", "--force"], np=1, env=env)

        self.assertEqual(first.returncode, 1, first.stdout + first.stderr)
        self.assertIn(prefix + ".tasks/1/stderr.1", kept)
        self.assertEqual(second.returncode, 0, second.stdout + second.stderr)
        self.assertEqual(self.store.keys(prefix + ".tasks/"), [])
        self.assertNotIn("failed tasks' last stderr lines", second.stderr)

    def test_worker_task_failure_and_worker_log_reach_the_bucket(self):
        """exec.mode: worker: a failed task keeps its worker log's tail as its stderr, and the rank's log goes up."""
        prefix = "runs/worker.h5"
        url = self.store.url(prefix)
        job = write_job(self.work, WORKER_JOB.format(program=os.path.join(SOURCE_DIR, "tests", "cli", "worker_program.py"),
                                                     scripts=os.path.join(SOURCE_DIR, "scripts"), work=self.work),
                        name="worker.yaml")
        scratch = scratch_dir(self)
        self.addCleanup(cloud_servers.kill_processes_with_env, f"SHARDRUN_SCRATCH={scratch}")

        proc = run(["run", job, "--set", f"output.path={url}", "-q"], np=1, env=self.env(scratch))
        keys = self.store.keys(prefix + ".tasks/")
        logs = run(["logs", url, "2", "--stderr"], env=self.reader_env())

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn(prefix + ".tasks/2/stderr", keys)
        self.assertIn(prefix + ".tasks/worker-rank0.log", keys)
        self.assertFalse([key for key in keys if key.startswith(prefix + ".tasks/1/")], keys)
        self.assertEqual(logs.returncode, 0, logs.stdout + logs.stderr)
        self.assertIn("task 2 attempt 1", logs.stdout)
        block = proc.stderr[proc.stderr.rfind("failed tasks' last stderr lines"):]
        self.assertIn("task 2: ", block)
        self.assertIn("task 2 attempt 1", block)


class S3LogsTest(CloudLogsBase, unittest.TestCase):
    backend = "s3"


class GcsLogsTest(CloudLogsBase, unittest.TestCase):
    backend = "gcs"


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcsLogsTest
    elif backend == "gcs":
        del S3LogsTest
    unittest.main()
