"""fail_fast's advice is true for its main case (issue 39's trial): a misspelled exec.argv[0]
(exit 127) stops the run, and the summary says that a fix in the job file needs --force or a
new output.path (a changed job file is refused by --resume, which this test checks too), while
a fix outside it (the program put on PATH) is finished by --resume, failed tasks included."""
import os
import stat
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

JOB = """
task: exec
sweep: {a: {range: [0, 12, 1]}}
exec:
  argv: ARGV
  results: {v: float64}
output: {path: OUT/advice.h5}
"""


class FailFastAdviceTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.out = os.path.join(self.work, "advice.h5")

    def job(self, argv):
        return write_job(self.work, JOB.replace("ARGV", argv).replace("OUT", self.work))

    def stopped_by_fail_fast(self, job, env=None):
        proc = run(["run", job], env=env)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        said = proc.stdout + proc.stderr
        self.assertIn("all failed with exit code 127", said)
        self.assertIn("--resume reruns the failed tasks", said)
        self.assertIn("a change to the job file (exec.argv, params) needs --force", said)
        self.assertNotIn("fix the cause, then run again", said)

    def assert_all_ok(self):
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(set(f["tasks/status"][:].tolist()), {1})
            self.assertEqual(sorted(f["results/v"][:].tolist()), [float(a) for a in range(12)])

    def test_a_fixed_job_file_needs_force(self):
        self.stopped_by_fail_fast(self.job('[no-such-program-pyhton, "{a}"]'))
        # The fix, in the job file: the same job file, its argv spelled right.
        fixed = self.job("""[sh, -c, 'echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']""")
        refused = run(["run", fixed, "--resume"])
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("exec.argv differs", refused.stderr)
        forced = run(["run", fixed, "--force", "-q"])
        self.assertEqual(forced.returncode, 0, forced.stderr)
        self.assert_all_ok()

    def test_a_program_fixed_outside_the_job_file_needs_only_resume(self):
        bin_dir = os.path.join(self.work, "bin")
        os.mkdir(bin_dir)
        path = bin_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        job = self.job('[advice-program, "{a}"]')
        self.stopped_by_fail_fast(job, env={"PATH": path})
        program = os.path.join(bin_dir, "advice-program")
        with open(program, "w") as f:
            f.write('#!/bin/sh\necho "{\\"v\\": $1}" > "$SHARDRUN_RESULT"\n')
        os.chmod(program, os.stat(program).st_mode | stat.S_IXUSR)
        resumed = run(["run", job, "--resume", "-q"], env={"PATH": path})
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assert_all_ok()


if __name__ == "__main__":
    unittest.main()
