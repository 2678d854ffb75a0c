"""`shardrun report`: a PNG (and an HTML page) drawn from a finished run's /tasks, and one-line
exit 2 for a missing file, a file that is not HDF5 and an HDF5 file that is not a results file.
Issue 23, point 7, through --stats (the numbers behind the picture): ranks labelled `r0 (host)`,
one bar per task without /attempts and one per attempt with it (failed ones counted apart), a
--resume found as a pause, marked, and left out of idle."""
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job, task_labels

h5py = h5py_module()


def finished_run(work):
    """40 exec tasks at 2 ranks: n % 11 == 3 fails (exit 7) after its retry, n % 7 == 2 fails only its first attempt."""
    script = ("sleep 0.0$(( {n} % 5 + 1 )); [ $(( {n} % 11 )) = 3 ] && exit 7; "
              "[ $(( {n} % 7 )) = 2 ] && [ {attempt} = 1 ] && exit 1; echo '{{\"v\": {n}}}' > $SHARDRUN_RESULT")
    job = write_job(work, f"""
        name: report-demo
        task: exec
        sweep: {{n: {{range: [0, 40, 1]}}}}
        retries: 1
        output: {{path: {work}/r.h5}}
        exec:
          argv: [sh, -c, "{script.replace('"', chr(92) + '"')}"]
          results: {{v: float64}}
        """)
    proc = run(["run", job, "-q"], np=2)
    assert proc.returncode == 1, proc.stderr  # some tasks failed, as intended
    return f"{work}/r.h5"


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.results = finished_run(cls.work)

    def test_png_and_html_of_a_finished_run(self):
        png, page = f"{self.work}/run.png", f"{self.work}/run.html"

        proc = run(["report", self.results, "--png", png, "--html", page])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(png, proc.stdout)
        import matplotlib.image
        image = matplotlib.image.imread(png)
        height, width = image.shape[:2]
        self.assertGreaterEqual(width, 1000)
        self.assertGreaterEqual(height, 600)
        self.assertGreater(os.path.getsize(png), 30_000)
        colours = {tuple(pixel) for pixel in (image[::3, ::3, :3] * 255).astype("uint8").reshape(-1, 3).tolist()}
        self.assertGreater(len(colours), 50)  # bars, hatching, text: far from one colour
        with open(page) as f:
            text = f.read()
        self.assertIn("data:image/png;base64,", text)
        self.assertIn("report-demo", text)
        self.assertIn("Failed tasks (4)", text)  # n = 3, 14, 25, 36

    def test_default_png_lands_next_to_the_results(self):
        proc = run(["report", self.results])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.getsize(f"{self.work}/r.report.png") > 30_000)

    def test_bad_input_is_one_line_and_exit_2(self):
        not_hdf5 = write_job(self.work, "just text\n", name="notes.h5")
        other = f"{self.work}/other.h5"
        with h5py.File(other, "w") as f:
            f["x"] = [1, 2, 3]
        cases = {f"{self.work}/missing.h5": "no such file", not_hdf5: "not an HDF5 file",
                 other: "not a shardrun results file"}
        for path, words in cases.items():
            with self.subTest(path=path):
                proc = run(["report", path])

                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                self.assertIn(words, proc.stderr)

    def test_a_python_that_cannot_draw_is_one_line_and_exit_2(self):
        # Trial 41b: a Python without matplotlib ended in a traceback (exit 1), and one that ran
        # nothing (/usr/bin/true) exited 0 with no picture and no word.
        venv = os.path.join(scratch_dir(self), "bare")
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
        for python, words in ((os.path.join(venv, "bin", "python"), "cannot import h5py and matplotlib"),
                              ("/usr/bin/true", "exited 0 but wrote no picture")):
            with self.subTest(python=python):
                png = os.path.join(scratch_dir(self), "none.png")
                proc = run(["report", self.results, "--png", png], env={"SHARDRUN_PYTHON": python})

                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                self.assertIn(words, proc.stderr)
                self.assertNotIn("Traceback", proc.stderr)


def report_stats(test, path, *args):
    """`report PATH --stats` (PNG beside it): the JSON it wrote."""
    stats = path + ".stats.json"
    proc = run(["report", path, "--png", path + ".png", "--stats", stats, *args])
    test.assertEqual(proc.returncode, 0, proc.stderr)
    with open(stats) as f:
        return json.load(f)


def task_columns(path):
    with h5py.File(path, "r") as f:
        columns = {c: f["tasks"][c][:] for c in ("status", "attempts", "rank", "start", "end")}
        columns["host"] = task_labels(f, "host")
        columns["has_attempts"] = "attempts" in f and "task" in f["attempts"]
    return columns


def bar_intervals(path):
    """(rank, start, end) of what report draws, by start: /attempts rows when there, else /tasks rows."""
    with h5py.File(path, "r") as f:
        group = f["attempts"] if "attempts" in f and "task" in f["attempts"] else f["tasks"]
        rows = zip(group["rank"][:], group["start"][:], group["end"][:])
        return sorted(((int(r), float(s), float(e)) for r, s, e in rows if s > 0), key=lambda b: b[1])


def add_attempts(path, rows):
    """Writes /attempts with the schema of issue 23 (equal-length 1-D datasets) into `path`."""
    import numpy as np
    with h5py.File(path, "r+") as f:
        if "attempts" in f:
            del f["attempts"]
        group = f.create_group("attempts")
        for name, dtype in (("task", np.uint64), ("attempt", np.int32), ("exit_code", np.int32),
                            ("start", np.float64), ("end", np.float64), ("rank", np.int32)):
            group[name] = np.array([r[name] for r in rows], dtype=dtype)
        group.create_dataset("message", data=[r["message"] for r in rows], dtype=h5py.string_dtype("utf-8"))


class ReportAttemptsTest(unittest.TestCase):
    """One run with retries: 1 at 2 ranks (finished_run)."""

    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.results = finished_run(cls.work)
        cls.tasks = task_columns(cls.results)

    def test_without_attempts_one_bar_per_task_and_ranks_with_their_host(self):
        # A file written before /attempts existed (or by layout single before it had them): a copy without it.
        copy = f"{self.work}/without-attempts.h5"
        shutil.copy(self.results, copy)
        with h5py.File(copy, "a") as f:
            if "attempts" in f:
                del f["attempts"]

        stats = report_stats(self, copy)

        self.assertEqual(stats["source"], "tasks")
        self.assertEqual(stats["bars"], 40)
        self.assertEqual(stats["failed_bars"], 4)  # n = 3, 14, 25, 36
        self.assertEqual(stats["resumes"], 0)
        hosts = {int(r): h for r, h in zip(self.tasks["rank"], self.tasks["host"])}
        self.assertEqual([lane["label"] for lane in stats["lanes"]], [f"r0 ({hosts[0]})", f"r1 ({hosts[1]})"])

    def test_attempts_schema_gives_one_bar_per_attempt_and_failed_ones_apart(self):
        # /attempts written from this run's /tasks by the documented schema: a task with k attempts
        # gets k consecutive attempts splitting its span; all but an ok task's last one failed.
        copy = f"{self.work}/with-attempts.h5"
        shutil.copy(self.results, copy)
        t = self.tasks
        rows = []
        for task in range(len(t["status"])):
            k = int(t["attempts"][task])
            step = (t["end"][task] - t["start"][task]) / k
            for a in range(1, k + 1):
                ok = a == k and t["status"][task] == 1
                rows.append({"task": task, "attempt": a, "exit_code": 0 if ok else 7,
                             "start": t["start"][task] + (a - 1) * step, "end": t["start"][task] + a * step,
                             "rank": int(t["rank"][task]), "message": "" if ok else f"exit 7 on attempt {a}"})
        add_attempts(copy, rows)

        stats = report_stats(self, copy)

        self.assertEqual(stats["source"], "attempts")
        self.assertEqual(stats["bars"], len(rows))
        self.assertEqual(stats["failed_bars"], sum(1 for r in rows if r["exit_code"]))
        self.assertGreater(stats["bars"], 40)  # the retried tasks (n % 7 == 2, n % 11 == 3) have two bars

    def test_a_real_retry_in_attempts(self):
        self.assertTrue(self.tasks["has_attempts"], "shardrun run wrote no /attempts")
        with h5py.File(self.results, "r") as f:
            attempts = {c: f["attempts"][c][:] for c in ("task", "start")}

        stats = report_stats(self, self.results)

        self.assertEqual(stats["source"], "attempts")
        self.assertEqual(stats["bars"], int((attempts["start"] > 0).sum()))
        # failed: both attempts of n % 11 == 3, the first of n % 7 == 2 (n = 2, 9, 16, 23, 30, 37; none both)
        self.assertEqual(stats["failed_bars"], 4 * 2 + 6)


class ReportResumeTest(unittest.TestCase):
    """A run whose task 3 fails until a marker file exists, then --resume after a pause."""

    GAP = 2.5  # --run-gap: above any pause inside a run of these short tasks, below the pause between runs

    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        marker = f"{cls.work}/marker"
        with open(f"{cls.work}/task.sh", "w") as f:
            f.write(f'sleep 0.2; [ "$1" = 3 ] && [ ! -e {marker} ] && exit 5; echo "{{\\"v\\": $1}}" > "$SHARDRUN_RESULT"\n')
        job = write_job(cls.work, f"""
            name: resumed
            task: exec
            sweep: {{n: {{range: [0, 8, 1]}}}}
            output: {{path: {cls.work}/s.h5}}
            exec:
              argv: [sh, {cls.work}/task.sh, "{{n}}"]
              results: {{v: float64}}
            """)
        first = run(["run", job, "-q"], np=2)
        assert first.returncode == 1, first.stderr  # task 3 failed
        time.sleep(2 * cls.GAP)  # the pause between the runs, which must not count as idle
        open(marker, "w").close()
        second = run(["run", job, "-q", "--resume"], np=2)
        assert second.returncode == 0, second.stderr
        cls.results = f"{cls.work}/s.h5"
        cls.tasks = task_columns(cls.results)

    def test_resume_is_a_second_run_and_its_pause_is_not_idle(self):
        stats = report_stats(self, self.results, "--run-gap", str(self.GAP))

        self.assertEqual(stats["resumes"], 1)
        self.assertEqual(len(stats["runs"]), 2)
        first, second = stats["runs"]
        self.assertGreater(second["start"] - first["end"], self.GAP)
        # Only task 3 ran again: the second run starts with its attempt of that run, the last of its attempts.
        with h5py.File(self.results, "r") as f:
            task3 = [float(start) for task, start in zip(f["attempts/task"][:], f["attempts/start"][:]) if task == 3]
        self.assertEqual(second["start"], max(task3))
        bars = bar_intervals(self.results)
        running = sum(r["end"] - r["start"] for r in stats["runs"])
        self.assertLess(running, bars[-1][2] - bars[0][1] - 2 * self.GAP)  # the pause is not in it
        for rank, lane in enumerate(stats["lanes"]):
            busy = sum(end - start for r, start, end in bars if r == rank)
            self.assertAlmostEqual(lane["busy"], busy, places=6)
            self.assertAlmostEqual(lane["idle"], max(running - busy, 0.0), places=6)
        busy = [lane["busy"] for lane in stats["lanes"]]
        self.assertAlmostEqual(stats["imbalance"], max(busy) / (sum(busy) / len(busy)), places=9)

    def test_one_run_when_the_pause_is_below_the_gap(self):
        stats = report_stats(self, self.results, "--run-gap", "3600")

        self.assertEqual(stats["resumes"], 0)

    def test_bad_run_gap_is_one_line_and_exit_2(self):
        proc = run(["report", self.results, "--run-gap", "0"])

        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("--run-gap", proc.stderr)


if __name__ == "__main__":
    unittest.main()
