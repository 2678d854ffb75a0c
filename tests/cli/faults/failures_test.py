"""Every failure explained and kept (issue 23, points 1 and 2): /tasks/message holds the reason
the summary prints, /attempts every attempt (h5py and xarray), `status` (plain and --json) the
reason and the log paths per failed task, a failed group member is named with its own error,
every attempt's output is kept, and `shardrun logs` prints a task's output by id after it ended
and, with --follow, while it runs. The message and attempts cases run for both output layouts
(shards, and single: one file through MPI-IO) at 1, 2 and 4 ranks, a resume included, and
`table --columns message` and `report` read both alike."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import unittest

import h5py

from harness import MPIEXEC, SHARDRUN, clean_env, run, scratch_dir, status_json, task_running, wait_for_task_running
from jobs import write_job
from xarray_check import ensure_xarray

ensure_xarray()
import xarray as xr  # noqa: E402

LAYOUTS = ("shards", "single")

# Task 0 succeeds at once; 1 fails its first attempt, then succeeds; 2 always fails.
RETRIED = r"""
name: failures
task: exec
retries: 1
sweep: {{i: [0, 1, 2]}}
exec:
  argv: [sh, -c, 'echo "out {{i}} $SHARDRUN_ATTEMPT"; case {{i}} in
    1) if [ "$SHARDRUN_ATTEMPT" = 1 ]; then echo "first try broke" >&2; exit 5; fi;;
    2) echo "Traceback (most recent call last):" >&2; echo "ValueError: bad value 2 try $SHARDRUN_ATTEMPT" >&2; exit 7;;
    esac']
output: {{path: {out}, layout: {layout}}}
"""

GROUP = r"""
name: group-failure
task: exec
gpus_per_task: 2
sweep: {{i: [0]}}
exec:
  argv: [sh, -c, 'if [ "$RANK" = 1 ]; then echo "RuntimeError: member one broke" >&2; exit 1; fi; sleep 30']
output: {{path: {out}}}
"""

# A DDP-like group: member 1 dies with a Python traceback; the leader then fails with the
# follow-on error its collective gets (what gloo prints when a peer is gone).
GROUP_TRACEBACK = r"""
name: group-traceback
task: exec
gpus_per_task: 2
sweep: {{i: [0]}}
exec:
  argv: [sh, -c, 'if [ "$RANK" = 1 ]; then printf "%s\n" "Traceback (most recent call last):"
                    "  File \"train.py\", line 9, in <module>"
                    "    raise RuntimeError(f\"member {{{{rank}}}} broke\")"
                    "RuntimeError: member 1 broke at step 3" >&2; exit 1; fi;
                  echo "RuntimeError: [gloo] Connection closed by peer [127.0.0.1]:29500" >&2; sleep 30']
output: {{path: {out}}}
"""


def attempts_of(path):
    with h5py.File(path) as f:
        group = f["attempts"]
        names = ("task", "attempt", "exit_code", "start", "end", "rank", "message")
        lengths = {len(group[name]) for name in names}
        dtypes = {name: group[name].dtype for name in names[:-1]}
        rows = list(zip(group["task"][:], group["attempt"][:], group["exit_code"][:], group["start"][:],
                        group["end"][:], group["rank"][:], group["message"].asstr()[:]))
    return lengths, dtypes, rows


class FailuresTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "failures.h5")
        self.tasks = self.out + ".tasks"

    def run_retried(self, np, layout="shards", quiet=True):
        job = write_job(self.work, RETRIED.format(out=self.out, layout=layout))
        proc = run(["run", job] + (["-q"] if quiet else []), np=np)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        return job, proc

    def check_retried_file(self, attempts_of_task2=2, layout="shards"):
        # $SHARDRUN_ATTEMPT, like /attempts, counts across runs (a resume goes on; issue 35, point 3).
        last_try = attempts_of_task2
        with h5py.File(self.out) as f:
            self.assertEqual(f.attrs["layout"], layout)
            # Variable-length UTF-8 in both layouts, as the schema says (a single file's MPI-IO
            # part holds only fixed-width strings).
            for name in ("tasks/message", "attempts/message"):
                info = h5py.check_string_dtype(f[name].dtype)
                self.assertEqual((info.encoding, info.length), ("utf-8", None), name)
            messages = f["tasks/message"].asstr()[:]
        self.assertEqual(messages[0], "")
        self.assertEqual(messages[1], "")
        self.assertIn(f"exited with status 7: ValueError: bad value 2 try {last_try}", messages[2])
        lengths, dtypes, rows = attempts_of(self.out)
        self.assertEqual(len(lengths), 1, lengths)
        self.assertEqual(str(dtypes["task"]), "uint64")
        for name in ("attempt", "exit_code", "rank"):
            self.assertEqual(str(dtypes[name]), "int32", name)
        for name in ("start", "end"):
            self.assertEqual(str(dtypes[name]), "float64", name)
        keys = [(int(task), int(attempt), int(code)) for task, attempt, code, *_ in rows]
        expected = [(0, 1, 0), (1, 1, 5), (1, 2, 0)] + [(2, k, 7) for k in range(1, attempts_of_task2 + 1)]
        self.assertEqual(keys, expected)
        for task, attempt, code, start, end, rank, message in rows:
            self.assertLessEqual(start, end)
            self.assertGreater(start, 1.6e9)
            self.assertGreaterEqual(rank, 0)
            self.assertEqual(message == "", code == 0, (task, attempt, message))
        self.assertIn("first try broke", rows[1][6])
        self.assertIn(f"bad value 2 try {last_try}", rows[-1][6])
        self.assertIn("bad value 2 try 1", rows[3][6])

    def test_reason_and_attempts_are_stored_with_quiet_progress(self):
        for layout in LAYOUTS:
            for np in (1, 2, 4):
                with self.subTest(layout=layout, np=np):
                    self.setUp()

                    self.run_retried(np, layout)

                    self.check_retried_file(layout=layout)

    def test_xarray_opens_attempts_and_tasks(self):
        for layout in LAYOUTS:
            with self.subTest(layout=layout):
                self.setUp()
                self.run_retried(2, layout)

                attempts = xr.open_dataset(self.out, engine="h5netcdf", group="attempts")
                tasks = xr.open_dataset(self.out, engine="h5netcdf", group="tasks")

                self.assertEqual(set(attempts.data_vars) | set(attempts.coords),
                                 {"task", "attempt", "exit_code", "start", "end", "rank", "message", "host",
                                  "interrupted"})
                self.assertEqual([int(i) for i in attempts["interrupted"].values], [0] * 5)
                self.assertEqual({str(h) for h in attempts["host"].values}, {socket.gethostname()})
                self.assertEqual(attempts.sizes["row"], 5)
                self.assertEqual([int(t) for t in attempts["task"].values], [0, 1, 1, 2, 2])
                self.assertEqual([int(c) for c in attempts["exit_code"].values], [0, 5, 0, 7, 7])
                self.assertIn("bad value 2 try 2", str(attempts["message"].values[4]))
                self.assertEqual(tasks["message"].dims, ("task",))
                self.assertIn("bad value 2", str(tasks["message"].values[2]))
                attempts.close()
                tasks.close()

    def test_table_and_report_read_both_layouts_alike(self):
        tables, bars = {}, {}
        for layout in LAYOUTS:
            self.setUp()
            self.run_retried(2, layout)

            table = run(["table", self.out, "--columns", "status,attempts,exit_code,message"])
            stats_path = self.out + ".stats.json"
            report = run(["report", self.out, "--png", self.out + ".png", "--stats", stats_path])

            self.assertEqual(table.returncode, 0, table.stderr)
            self.assertIn("exited with status 7: ValueError: bad value 2 try 2", table.stdout)
            self.assertEqual(report.returncode, 0, report.stderr)
            with open(stats_path) as f:
                stats = json.load(f)
            self.assertEqual(stats["source"], "attempts", layout)
            tables[layout] = table.stdout
            bars[layout] = (stats["bars"], stats["failed_bars"])
        self.assertEqual(tables["single"], tables["shards"])
        self.assertEqual(bars["single"], bars["shards"])
        self.assertEqual(bars["single"], (5, 3))

    def test_every_attempt_output_is_kept(self):
        self.run_retried(2)

        with open(os.path.join(self.tasks, "1", "stderr.1")) as f:
            self.assertEqual(f.read(), "first try broke\n")
        with open(os.path.join(self.tasks, "1", "stdout.2")) as f:
            self.assertEqual(f.read(), "out 1 2\n")
        for k in (1, 2):
            with open(os.path.join(self.tasks, "2", f"stderr.{k}")) as f:
                self.assertIn(f"bad value 2 try {k}", f.read())
        with open(os.path.join(self.tasks, "2", "stderr")) as f:
            self.assertIn("bad value 2 try 2", f.read())

    def test_status_prints_reason_and_logs(self):
        for layout in LAYOUTS:
            with self.subTest(layout=layout):
                self.setUp()
                self.run_retried(2, layout)

                plain = run(["status", self.out])
                as_json = run(["status", self.out, "--json"])

                self.check_status(plain, as_json)

    def check_status(self, plain, as_json):
        self.assertIn("failed task 2 (element 0, rank", plain.stdout)
        self.assertIn("exit code 7, 2 attempts): exited with status 7: ValueError: bad value 2 try 2", plain.stdout)
        self.assertIn(f"logs: {self.tasks}/2/stderr.1 {self.tasks}/2/stderr.2 {self.tasks}/2/stdout.1", plain.stdout)
        failed = json.loads(as_json.stdout)["failed_tasks"]
        self.assertEqual([task["task_id"] for task in failed], [2])
        self.assertEqual(failed[0]["attempts"], 2)
        self.assertEqual(failed[0]["exit_code"], 7)
        self.assertIn("ValueError: bad value 2 try 2", failed[0]["message"])
        self.assertIn(f"{self.tasks}/2/stderr.1", failed[0]["logs"])

    def test_resume_goes_on_counting_attempts(self):
        for layout in LAYOUTS:
            for np in (1, 2, 4):
                with self.subTest(layout=layout, np=np):
                    self.setUp()
                    job, _ = self.run_retried(np, layout)

                    proc = run(["run", job, "--resume", "-q"], np=np)

                    self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                    self.check_retried_file(attempts_of_task2=4, layout=layout)
                    for k in (1, 2, 3, 4):
                        self.assertTrue(os.path.exists(os.path.join(self.tasks, "2", f"stderr.{k}")), k)

    def test_second_resume_of_a_single_file_keeps_every_attempt(self):
        # A resume reopens the finished file for MPI-IO and rewrites /attempts: twice in a row
        # must neither lose nor repeat a row.
        job, _ = self.run_retried(2, "single")

        for np in (4, 1):
            proc = run(["run", job, "--resume", "-q"], np=np)

            self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.check_retried_file(attempts_of_task2=6, layout="single")
        attempts = xr.open_dataset(self.out, engine="h5netcdf", group="attempts")
        self.assertEqual(attempts.sizes["row"], 9)
        attempts.close()

    def test_logs_after_the_end(self):
        self.run_retried(2)

        latest = run(["logs", self.out, "2", "--stderr"])
        first = run(["logs", self.out, "2", "--stderr", "--attempt", "1"])
        stdout = run(["logs", self.out, "0"])
        silent = run(["logs", self.out, "0", "--stderr"])

        self.assertEqual(latest.returncode, 0, latest.stderr)
        self.assertIn("try 2", latest.stdout)
        self.assertIn("try 1", first.stdout)
        self.assertEqual(stdout.stdout, "out 0 1\n")
        self.assertEqual(silent.returncode, 1)
        self.assertEqual(silent.stdout, "")
        self.assertEqual(len(silent.stderr.strip().splitlines()), 1, silent.stderr)

    def test_failed_group_member_is_named_with_its_error(self):
        job = write_job(self.work, GROUP.format(out=self.out))

        proc = run(["run", job, "-q"], np=2)
        status = run(["status", self.out])

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        with h5py.File(self.out) as f:
            message = f["tasks/message"].asstr()[0]
        self.assertIn("group member 1 failed (exit code 1): RuntimeError: member one broke", message)
        self.assertIn(f"{self.tasks}/0/member1/stderr", message)
        self.assertIn("group member 1 failed (exit code 1): RuntimeError: member one broke", status.stdout)
        self.assertIn(f"{self.tasks}/0/member1/stderr.1", status.stdout)
        member = run(["logs", self.out, "0", "--member", "1", "--stderr"])
        self.assertEqual(member.stdout, "RuntimeError: member one broke\n")

    def test_status_shows_the_failed_members_own_traceback(self):
        # Issue 35, point 9: the reason is the member's exception line, not its `raise` source
        # line, and status's stderr tail is the member's traceback, not the leader's gloo error.
        job = write_job(self.work, GROUP_TRACEBACK.format(out=self.out))

        proc = run(["run", job, "-q"], np=2)
        _, report = status_json(self.out)
        plain = run(["status", self.out])

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        [task] = report["failed_tasks"]
        self.assertIn("group member 1 failed (exit code 1): RuntimeError: member 1 broke at step 3", task["message"])
        self.assertNotIn("raise", task["message"])
        self.assertEqual(task["stderr_tail"][-1], "RuntimeError: member 1 broke at step 3")
        self.assertIn("Traceback (most recent call last):", task["stderr_tail"])
        self.assertFalse(any("gloo" in line for line in task["stderr_tail"]), task["stderr_tail"])
        self.assertIn("    | RuntimeError: member 1 broke at step 3", plain.stdout)
        self.assertNotIn("    | RuntimeError: [gloo]", plain.stdout)

    def test_bad_logs_arguments_get_one_line_and_exit_2(self):
        self.run_retried(1)
        cases = [["logs"], ["logs", self.out], ["logs", self.out, "abc"], ["logs", self.out, "-1"],
                 ["logs", self.out, "1", "--attempt", "0"], ["logs", self.out, "1", "--bogus"],
                 ["logs", os.path.join(self.work, "nothing.h5"), "1"], ["logs", self.out, "3"],
                 ["logs", self.out, "2", "--stderr", "--attempt", "3"]]
        for args in cases:
            with self.subTest(args=args):
                proc = run(args)

                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(proc.stdout, "")
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        # A task id beyond the job (3 tasks: 0, 1, 2) is named as such, not as "not started yet".
        self.assertIn("has no task 3: its job has 3 tasks (ids 0 to 2)", run(["logs", self.out, "3"]).stderr)
        # An attempt past the task's last (2 here) is named as such too (trial 41b).
        self.assertIn("task 2 has output of attempts 1 to 2 only; --attempt 3 names none",
                      run(["logs", self.out, "2", "--stderr", "--attempt", "3"]).stderr)


# The task prints a line with the time it wrote it, four times a second apart.
FOLLOWED = r"""
name: follow
task: exec
sweep: {{i: [0]}}
exec:
  argv: [python3, -u, -c, 'import time; [(print("line", k, repr(time.time()), flush=True), time.sleep(1.0)) for k in range(4)]']
output: {{path: {out}}}
"""


class FollowTest(unittest.TestCase):
    def test_follow_shows_each_line_within_one_second(self):
        work = scratch_dir()
        out = os.path.join(work, "follow.h5")
        job = write_job(work, FOLLOWED.format(out=out))
        runner = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"],
                                  env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertTrue(wait_for_task_running(out, 0, 60), "the task never started")

            started = time.time()
            follower = subprocess.Popen([SHARDRUN, "logs", out, "0", "--follow"], env=clean_env(),
                                        stdout=subprocess.PIPE, text=True)
            arrivals = []
            for line in follower.stdout:
                arrivals.append((time.time(), line.split()))
            follower.wait(timeout=30)
            follower.stdout.close()

            self.assertEqual(follower.returncode, 0)
            self.assertEqual([words[1] for _, words in arrivals], ["0", "1", "2", "3"])
            live = [(arrived, float(words[2])) for arrived, words in arrivals if float(words[2]) > started]
            self.assertGreaterEqual(len(live), 2, arrivals)
            # Lines written after `logs` started arrive within 1 s of being written (the target).
            for arrived, written in live:
                self.assertLessEqual(arrived - written, 1.0)
        finally:
            runner.wait(timeout=120)
        self.assertEqual(runner.returncode, 0, runner.stderr.read() if runner.stderr else "")
        runner.stdout.close()
        runner.stderr.close()

    def test_follow_of_a_task_whose_rank_was_killed_ends(self):
        # Issue 35, point 8: the killed rank's running index stayed, and `logs --follow` waited forever.
        work = scratch_dir()
        out = os.path.join(work, "killed.h5")
        job = write_job(work, f"""
name: killed
task: exec
sweep: {{i: [0]}}
exec:
  argv: [python3, -u, -c, 'import time; print("started", flush=True); time.sleep(120)']
output: {{path: {out}}}
""")
        runner = subprocess.Popen([SHARDRUN, "run", job, "-q"], env=clean_env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.assertTrue(wait_for_task_running(out, 0, 60), "the task never started")
        follower = subprocess.Popen([SHARDRUN, "logs", out, "0", "--follow"], env=clean_env(),
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        os.killpg(runner.pid, signal.SIGKILL)  # the rank and, through its guard, its task
        runner.communicate(timeout=30)
        self.assertTrue(task_running(out, 0), "the killed rank's index must be left behind for this test to mean anything")
        try:
            followed, said = follower.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            follower.kill()
            follower.communicate()
            self.fail("logs --follow kept waiting on the index of a killed run")
        self.assertEqual(follower.returncode, 0, said)
        self.assertIn("started", followed)
        self.assertIn("task 0's run ended without finishing it", said)

        # Started after the crash: one line, exit 1, and no stale output shown as the task's.
        late = run(["logs", out, "0"])
        self.assertEqual(late.returncode, 1, late.stdout + late.stderr)
        self.assertEqual(late.stdout, "")
        self.assertIn("task 0 was running when its run ended without finishing it", late.stderr)
        late_follow = run(["logs", out, "0", "--follow"], timeout=15)
        self.assertEqual(late_follow.returncode, 1, late_follow.stdout + late_follow.stderr)


if __name__ == "__main__":
    unittest.main()
