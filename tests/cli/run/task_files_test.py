"""An exec task creates no file it does not use (issue 13, point 1): its folder in
<output>.tasks/ exists only when it wrote output, declared results or was told where its
folder is ({task_dir}); stdout and stderr are kept only when not empty; no scratch file is left
behind; a failed task's stderr still reaches the summary and `shardrun status`."""
import os
import sys
import unittest

from harness import run, scratch_dir
from jobs import write_job

# Task 0 is silent, 1 writes stdout, 2 writes stderr and fails, 3 is silent and fails.
QUIET_AND_NOISY = r"""
name: files
task: exec
sweep: {i: [0, 1, 2, 3]}
exec:
  argv: [sh, -c, 'case {i} in 1) echo hello;; 2) echo "bad input 2" >&2; exit 3;; 3) exit 4;; esac']
output: {path: OUT/files.h5}
"""


class TaskFilesTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.tasks = os.path.join(self.work, "files.h5.tasks")

    def listing(self):
        found = []
        for root, dirs, files in os.walk(self.tasks):
            found += [os.path.relpath(os.path.join(root, name), self.tasks) for name in dirs + files]
        return sorted(found)

    def test_only_written_output_is_kept(self):
        job = write_job(self.work, QUIET_AND_NOISY.replace("OUT", self.work))

        proc = run(["run", job], np=2)

        self.assertEqual(proc.returncode, 1, proc.stderr)
        # Each attempt's own file (issue 23), and the plain name linked to the latest one.
        self.assertEqual(self.listing(), ["1", "1/stdout", "1/stdout.1", "2", "2/stderr", "2/stderr.1"])
        with open(os.path.join(self.tasks, "1", "stdout")) as f:
            self.assertEqual(f.read(), "hello\n")
        self.assertIn("exited with status 3: bad input 2", proc.stdout + proc.stderr)
        status = run(["status", os.path.join(self.work, "files.h5")])
        self.assertIn("| bad input 2", status.stdout)

    def test_a_retry_that_writes_nothing_leaves_no_stale_output(self):
        # The first attempt writes stderr and fails; the second is silent and succeeds.
        job = write_job(self.work, f"""
name: files
task: exec
retries: 1
sweep: {{i: [0]}}
exec:
  argv: [sh, -c, 'if [ "$SHARDRUN_ATTEMPT" = 1 ]; then echo first >&2; exit 1; fi']
output: {{path: {self.work}/files.h5}}
""")

        proc = run(["run", job, "-q"])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        # The first attempt's stderr stays as its own file; the plain name, the latest output, is gone.
        self.assertEqual(self.listing(), ["0", "0/stderr.1"])

    def test_a_failed_attempts_result_files_go_once_a_later_one_succeeds(self):
        # Issue 35, point 11: a run writes a truncated loss.npy (as a full disk leaves it) and
        # fails: the file is kept in the task's folder for the user. The resume succeeds: the
        # stale file goes, so nothing in the folder reads as the task's result.
        program = os.path.join(self.work, "loss.py")
        with open(program, "w") as f:
            f.write("import numpy, os, sys\n"
                    "path = os.path.join(os.environ['SHARDRUN_RESULT_DIR'], 'loss.npy')\n"
                    "if os.path.exists(sys.argv[1]):\n"
                    "    open(path, 'wb').write(b'\\x93NUMPY')\n"
                    "    sys.exit(1)\n"
                    "numpy.save(path, numpy.arange(3.0))\n")
        broken = os.path.join(self.work, "broken")
        open(broken, "w").close()
        job = write_job(self.work, f"""
name: files
task: exec
sweep: {{i: [0]}}
exec:
  argv: [{sys.executable}, {program}, {broken}]
  results: {{loss: [float64, 3]}}
output: {{path: {self.work}/files.h5}}
""")
        kept = os.path.join(self.tasks, "0", "loss.npy")

        self.assertEqual(run(["run", job, "-q"]).returncode, 1)
        self.assertTrue(os.path.exists(kept), self.listing())
        os.remove(broken)
        resumed = run(["run", job, "-q", "--resume"])

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertFalse(os.path.exists(kept), self.listing())

    def test_folders_exist_up_front_for_results_and_task_dir(self):
        job = write_job(self.work, f"""
name: files
task: exec
sweep: {{i: [0, 1]}}
exec:
  argv: [sh, -c, 'test -d "{{task_dir}}" && echo "{{{{\\"v\\": {{i}}}}}}" > "$SHARDRUN_RESULT"']
  results: {{v: float64}}
output: {{path: {self.work}/files.h5}}
""")

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual([name for name in self.listing() if "/" not in name], ["0", "1"])
        self.assertFalse([name for name in self.listing() if "scratch" in name])


if __name__ == "__main__":
    unittest.main()
