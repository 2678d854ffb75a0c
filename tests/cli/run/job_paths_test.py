"""Relative paths in a job file mean the job file's folder, wherever shardrun runs (issue 11,
point 8): data.input, points_file and an exec.argv[0] with a '/'; exec tasks run in exec.cwd
(relative to the job file's folder, by default that folder), and SHARDRUN_TASK_DIR and
SHARDRUN_RESULT are absolute. Every run here starts in another folder than the job file's."""
import os
import stat
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

SCRIPT = """#!/bin/sh
echo "cwd=$(pwd)"
echo "task_dir=$SHARDRUN_TASK_DIR"
echo "result=$SHARDRUN_RESULT"
cat marker.txt
echo "{\\"x\\": $SHARDRUN_PARAM_X, \\"rows\\": $SHARDRUN_RANGE_END}" > "$SHARDRUN_RESULT"
"""


class JobPathsTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.jobs = os.path.join(self.work, "project")
        self.elsewhere = os.path.join(self.work, "elsewhere")
        for folder in (self.jobs, os.path.join(self.jobs, "data"), self.elsewhere):
            os.makedirs(folder)
        script = os.path.join(self.jobs, "task.sh")
        with open(script, "w") as f:
            f.write(SCRIPT)
        os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
        with open(os.path.join(self.jobs, "points.yaml"), "w") as f:
            f.write("- {x: 1}\n- {x: 2}\n")
        with h5py_module().File(os.path.join(self.jobs, "rows.h5"), "w") as f:
            f["rows"] = [[1.0]] * 4

    def job(self, cwd_line):
        return write_job(self.jobs, f"""
name: paths
task: exec
sweep: {{points_file: points.yaml}}
data: {{input: rows.h5:/rows, chunk: 4}}
exec:
  argv: [./task.sh]
  {cwd_line}
  results: {{x: float64, rows: int64}}
output: {{path: out/paths.h5}}
""")

    def stdout_of(self, task):
        with open(os.path.join(self.elsewhere, "out", "paths.h5.tasks", str(task), "stdout")) as f:
            return f.read().splitlines()

    def check_run(self, job, expected_cwd):
        proc = run(["run", job, "-q"], np=2, cwd=self.elsewhere)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with h5py_module().File(os.path.join(self.elsewhere, "out", "paths.h5"), "r") as f:
            self.assertEqual(list(f["results/x"][:]), [1.0, 2.0])
            self.assertEqual(list(f["results/rows"][:]), [4, 4])
        task_dir = os.path.join(self.elsewhere, "out", "paths.h5.tasks", "1")
        lines = self.stdout_of(1)
        self.assertEqual(lines[:2], [f"cwd={expected_cwd}", f"task_dir={task_dir}"])
        # Absolute, under <output>.tasks (the running slot's result folder, not the task's).
        self.assertTrue(lines[2].startswith("result=" + os.path.dirname(task_dir) + "/"), lines[2])
        self.assertTrue(lines[2].endswith("/result.json"), lines[2])
        self.assertEqual(lines[3], f"marker in {os.path.basename(expected_cwd)}")

    def write_marker(self, folder):
        with open(os.path.join(folder, "marker.txt"), "w") as f:
            f.write(f"marker in {os.path.basename(folder)}\n")

    def test_paths_resolve_against_the_job_file_and_tasks_run_in_its_folder(self):
        self.write_marker(self.jobs)

        self.check_run(self.job(""), self.jobs)

    def test_exec_cwd_is_relative_to_the_job_file(self):
        self.write_marker(os.path.join(self.jobs, "data"))

        self.check_run(self.job("cwd: data"), os.path.join(self.jobs, "data"))

    def test_exec_cwd_given_with_set_counts_as_the_job_files(self):
        self.write_marker(os.path.join(self.jobs, "data"))
        job = self.job("")

        proc = run(["run", job, "-q", "--set", "exec.cwd=data"], cwd=self.elsewhere)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.stdout_of(0)[0], f"cwd={os.path.join(self.jobs, 'data')}")

    def test_job_dir_stands_in_for_the_folder_of_a_copied_job(self):
        # What `shardrun submit` does: it runs a copy of the job kept in <output>.submit/.
        self.write_marker(self.jobs)
        copy = os.path.join(self.elsewhere, "copy.yaml")
        with open(self.job("")) as original, open(copy, "w") as f:
            f.write(original.read())

        proc = run(["run", copy, "-q", "--job-dir", self.jobs], cwd=self.elsewhere)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.stdout_of(0)[0], f"cwd={self.jobs}")

    def test_a_missing_exec_cwd_is_bad_input(self):
        job = self.job("cwd: nowhere")

        proc = run(["run", job, "-q"], cwd=self.elsewhere)

        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn(f"job.yaml:8:8: exec.cwd: '{os.path.join(self.jobs, 'nowhere')}' does not exist", proc.stderr)
        self.assertEqual(os.listdir(self.elsewhere), [])


if __name__ == "__main__":
    unittest.main()
