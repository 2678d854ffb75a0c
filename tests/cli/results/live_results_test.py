"""Issue 24, point 3: looking at a running job. A real 12-task exec sweep at 2 ranks where tasks
0..3 finish (each longer than the 1 s commit interval, so each is committed as it ends) and the
others wait for a gate file the test creates: while the gate is shut, `status`, `table` and
`export` say `running: 4 of 12 committed` and show exactly those tasks with their values; the
readers change no byte of the output and create nothing under it; `table --watch 0.5` prints
snapshots until the run ends, then the final table, exit 0; Ctrl-C stops it cleanly; bad
--watch values are exit 2. With output.layout single the running file is not read: one line
says why. No timing assertion: the test only waits (polling, generous timeouts) for states."""
import csv
import glob
import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, kill_task_processes, run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()
TASKS, DONE_EARLY = 12, 4
TASK = """
import json, os, sys, time
task = int(os.environ["SHARDRUN_TASK_ID"])
if task >= int(os.environ["DONE_EARLY"]):
    while not os.path.exists(os.environ["GATE"]):
        time.sleep(0.05)
# Longer than the runner's 1 s commit interval: the rank commits as this task ends.
time.sleep(1.1)
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"v": float(os.environ["SHARDRUN_PARAM_A"]) * 10 + 0.5}, f)
"""


def value_of(task):
    return task * 10 + 0.5  # a = task (range 0..11)


def tree_state(work, out):
    """Every file under the output's folder (not the readers' temp folder): path -> sha256 of committed ones, or None."""
    state = {}
    for path in sorted(glob.glob(os.path.join(work, "**"), recursive=True)):
        if os.path.isdir(path) or path.startswith(os.path.join(work, "tmp")):
            continue
        state[path] = None
        if path.endswith(".h5") and "/r" in path[len(out):]:  # a published segment
            with open(path, "rb") as f:
                state[path] = hashlib.sha256(f.read()).hexdigest()
    return state


class LiveResultsTest(unittest.TestCase):
    def start(self, layout):
        work = scratch_dir()
        os.makedirs(os.path.join(work, "tmp"))
        with open(os.path.join(work, "task.py"), "w") as f:
            f.write(TASK)
        out = os.path.join(work, "out.h5")
        gate = os.path.join(work, "gate")
        job = write_job(work, f"""\
            name: live
            task: exec
            sweep: {{a: {{range: [0, {TASKS}, 1]}}}}
            output: {{path: {out}, layout: {layout}}}
            exec:
              argv: [{sys.executable}, {work}/task.py]
              env: {{GATE: {gate}, DONE_EARLY: "{DONE_EARLY}"}}
              results: {{v: float64}}
            """)
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=clean_env())
        self.addCleanup(self.stop, proc, work, gate)
        # The readers' snapshots go to TMPDIR: a folder of the test's own, checked empty afterwards.
        self.env = {"TMPDIR": os.path.join(work, "tmp")}
        return work, out, gate, proc

    def stop(self, proc, work, gate):
        open(gate, "w").close()
        try:
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        kill_task_processes(work)

    def reader(self, *args):
        return run(list(args), env=self.env, timeout=120)

    def wait_committed(self, out, count):
        """Polls `status --json` until `count` tasks are committed while the run goes on."""
        deadline = time.time() + 240
        report = None
        while time.time() < deadline:
            done = self.reader("status", out, "--json")
            if done.stdout.strip():
                report = json.loads(done.stdout)
                if report["running"] and report["committed"] >= count:
                    return report
            time.sleep(0.2)
        self.fail(f"never {count} committed while running; last status: {report}")

    def wait_running(self, out):
        deadline = time.time() + 240
        while time.time() < deadline:
            done = self.reader("status", out, "--json")
            if done.stdout.strip() and json.loads(done.stdout)["running"]:
                return
            time.sleep(0.2)
        self.fail("the run never held its lock")

    def assert_running_line(self, text, committed=DONE_EARLY):
        self.assertRegex(text, rf"running: {committed} of {TASKS} committed")

    def test_shards_readers_see_committed_tasks_and_change_nothing(self):
        work, out, gate, proc = self.start("shards")
        report = self.wait_committed(out, DONE_EARLY)
        self.assertEqual(report["committed"], DONE_EARLY)  # the others wait for the gate
        before = tree_state(work, out)
        self.assertTrue(any(before.values()), before)  # there are committed segments to hash

        status = self.reader("status", out)
        self.assertEqual(status.returncode, 4, status.stdout + status.stderr)  # running (status's exit codes)
        self.assertEqual(status.stdout.splitlines()[0], f"running: {DONE_EARLY} of {TASKS} committed")

        table = self.reader("table", out, "--csv")
        self.assertEqual(table.returncode, 0, table.stdout + table.stderr)
        self.assert_running_line(table.stderr)
        rows = list(csv.DictReader(io.StringIO(table.stdout)))
        self.assertEqual([int(r["task"]) for r in rows], list(range(DONE_EARLY)))
        for r in rows:
            self.assertEqual(r["status"], "ok")
            self.assertEqual(float(r["a"]), int(r["task"]))
            self.assertEqual(float(r["v"]), value_of(int(r["task"])))

        text = self.reader("table", out, "--sort", "v", "--desc", "--top", "2")
        self.assertEqual(text.returncode, 0, text.stdout + text.stderr)
        self.assert_running_line(text.stderr)
        self.assertIn(str(value_of(DONE_EARLY - 1)), text.stdout)

        as_json = self.reader("table", out, "--json")
        self.assertEqual(as_json.returncode, 0, as_json.stderr)
        self.assertEqual([r["task"] for r in json.loads(as_json.stdout)], list(range(DONE_EARLY)))

        grid = os.path.join(work, "tmp-grid", "grid.nc")
        os.makedirs(os.path.dirname(grid))
        export = self.reader("export", out, "--grid", grid)
        self.assertEqual(export.returncode, 0, export.stdout + export.stderr)
        self.assert_running_line(export.stderr)
        with h5py.File(grid, "r") as f:
            values = f["v"][:].tolist()
        for task, value in enumerate(values):
            if task < DONE_EARLY:
                self.assertEqual(value, value_of(task))
            else:
                self.assertNotEqual(value, value)  # NaN: not committed yet

        report_dir = os.path.join(work, "tmp-report")
        os.makedirs(report_dir)
        stats = os.path.join(report_dir, "stats.json")
        picture = self.reader("report", out, "--png", os.path.join(report_dir, "r.png"), "--stats", stats)
        self.assertEqual(picture.returncode, 0, picture.stdout + picture.stderr)
        self.assert_running_line(picture.stderr)
        with open(stats) as f:
            self.assertEqual(json.load(f)["running"], {"committed": DONE_EARLY, "tasks": TASKS})

        # Nothing the run wrote changed, nothing was added under the output, no snapshot is left.
        after = tree_state(work, out)
        for path, digest in before.items():
            self.assertIn(path, after)
            self.assertEqual(after[path], digest, path)
        added = set(after) - set(before)
        self.assertEqual({p for p in added if not p.startswith((os.path.join(work, "tmp-grid"), report_dir))}, set())
        self.assertEqual(os.listdir(os.path.join(work, "tmp")), [])

        open(gate, "w").close()
        self.assertEqual(proc.wait(timeout=300), 0, proc.stdout.read())
        final = self.reader("table", out, "--csv")
        self.assertEqual(final.returncode, 0, final.stderr)
        self.assertNotIn("running:", final.stderr)
        self.assertEqual(len(list(csv.DictReader(io.StringIO(final.stdout)))), TASKS)

    def test_watch_prints_snapshots_until_the_run_ends(self):
        work, out, gate, proc = self.start("shards")
        self.wait_committed(out, 1)
        printed = os.path.join(work, "watch.txt")
        with open(printed, "w") as sink:
            watcher = subprocess.Popen([SHARDRUN, "table", out, "--watch", "0.5"], stdout=sink,
                                       stderr=subprocess.STDOUT, env=clean_env(self.env))
        self.addCleanup(lambda: watcher.poll() is None and watcher.kill())
        deadline = time.time() + 240
        while time.time() < deadline:
            with open(printed) as f:
                if f.read().count("running: ") >= 2:
                    break
            time.sleep(0.2)
        open(gate, "w").close()
        self.assertEqual(watcher.wait(timeout=300), 0)
        self.assertEqual(proc.wait(timeout=300), 0, proc.stdout.read())
        with open(printed) as f:
            text = f.read()
        snapshots = re.findall(r"running: (\d+) of 12 committed", text)
        self.assertGreaterEqual(len(snapshots), 2, text)
        self.assertTrue(all(0 < int(n) <= TASKS for n in snapshots), text)
        self.assertIn(f"run ended: {out}", text)
        final = text.split(f"run ended: {out}", 1)[1]
        self.assertEqual(final.count(" ok"), TASKS, final)
        self.assertEqual(os.listdir(os.path.join(work, "tmp")), [])

    def test_watch_stops_cleanly_on_ctrl_c(self):
        work, out, gate, proc = self.start("shards")
        self.wait_committed(out, 1)
        watcher = subprocess.Popen([SHARDRUN, "table", out, "--watch", "0.5"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=clean_env(self.env))
        self.addCleanup(watcher.stderr.close)
        self.addCleanup(watcher.stdout.close)
        self.addCleanup(lambda: watcher.poll() is None and watcher.kill())
        self.assertIn("running: ", watcher.stdout.readline())
        watcher.send_signal(signal.SIGINT)
        self.assertEqual(watcher.wait(timeout=60), 0, watcher.stderr.read())
        self.assertEqual(os.listdir(os.path.join(work, "tmp")), [])
        self.assertIsNone(proc.poll())  # the run goes on

    def test_bad_watch_values_are_exit_2(self):
        work = scratch_dir()
        for value in ("0", "-1", "abc", "nan", "1s"):
            done = run(["table", os.path.join(work, "out.h5"), "--watch", value])
            self.assertEqual(done.returncode, 2, value + done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
            self.assertIn(f"--watch {value}: give the seconds between tables, a number above 0", done.stderr)
            self.assertEqual(done.stdout, "")
        done = run(["table", os.path.join(work, "out.h5"), "--watch", "1", "--csv"])
        self.assertEqual(done.returncode, 2, done.stderr)

    def test_single_layout_is_not_read_while_running(self):
        work, out, gate, proc = self.start("single")
        self.wait_running(out)
        for args in (("table", out), ("export", out, "--grid", os.path.join(work, "g.nc")), ("report", out)):
            done = self.reader(*args)
            self.assertEqual(done.returncode, 2, args)
            lines = done.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, done.stderr)
            self.assertIn("running with output.layout single", lines[0])
            self.assertIn("use output.layout shards to look at results while a job runs", lines[0])
        status = self.reader("status", out, "--json")
        report = json.loads(status.stdout)
        self.assertTrue(report["running"])
        self.assertEqual(len(report["unreadable"]), 1, report)
        self.assertFalse(os.path.exists(os.path.join(work, "g.nc")))
        self.assertEqual(os.listdir(os.path.join(work, "tmp")), [])
        open(gate, "w").close()
        self.assertEqual(proc.wait(timeout=300), 0, proc.stdout.read())
        final = self.reader("table", out, "--csv")
        self.assertEqual(final.returncode, 0, final.stderr)
        self.assertEqual(len(list(csv.DictReader(io.StringIO(final.stdout)))), TASKS)


if __name__ == "__main__":
    unittest.main()
