"""Symlinks planted in the output tree are never followed: the master's temporary, a task's
stdout, an element manifest's temporary and a task folder pointing at a victim file or folder
leave the victim untouched. A leftover <out>.tasks/ counts as an existing output."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

JOB = r"""
name: planted
task: exec
sweep: {a: {range: [0, 4, 1]}}
exec:
  argv: [sh, -c, 'if [ -e OUT/fail-first ] && [ $SHARDRUN_PARAM_A = 0 ]; then exit 1; fi; echo out-$SHARDRUN_PARAM_A; echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/out.h5}
"""


class PlantedSymlinksTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.job = write_job(self.work, JOB.replace("OUT", self.work))
        self.out = os.path.join(self.work, "out.h5")
        self.victim = os.path.join(self.work, "victim")
        with open(self.victim, "w") as f:
            f.write("precious\n")

    def assert_victim_untouched(self):
        with open(self.victim) as f:
            self.assertEqual(f.read(), "precious\n")

    def assert_results_complete(self):
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(list(f["results/v"][:]), [0.0, 1.0, 2.0, 3.0])

    def test_master_temporary(self):
        os.symlink(self.victim, self.out + ".tmp")
        self.assertEqual(run(["run", self.job, "-q"], np=2).returncode, 0)
        self.assert_victim_untouched()
        self.assert_results_complete()

    def test_element_manifest_temporary_on_resume(self):
        self.assertEqual(run(["run", self.job, "-q"]).returncode, 0)
        os.symlink(self.victim, os.path.join(self.out + ".shards", "a0", "element.json.tmp"))
        self.assertEqual(run(["run", self.job, "-q", "--resume"]).returncode, 0)
        self.assert_victim_untouched()

    def test_task_stdout_on_resume(self):
        # Task 0 fails the first time, so --resume runs it again in its existing folder.
        flag = os.path.join(self.work, "fail-first")
        open(flag, "w").close()
        self.assertEqual(run(["run", self.job, "-q"]).returncode, 1)
        os.remove(flag)
        stdout = os.path.join(self.out + ".tasks", "0", "stdout")
        # The failed attempt wrote no stdout, so none was kept (nor its folder: it wrote nothing).
        self.assertFalse(os.path.exists(stdout))
        os.makedirs(os.path.dirname(stdout), exist_ok=True)
        os.symlink(self.victim, stdout)
        self.assertEqual(run(["run", self.job, "-q", "--resume"]).returncode, 0)
        self.assert_victim_untouched()
        self.assert_results_complete()
        with open(stdout) as f:
            self.assertEqual(f.read(), "out-0\n")

    def test_leftover_task_folder_counts_as_an_existing_output(self):
        victim_dir = os.path.join(self.work, "victim-dir")
        os.mkdir(victim_dir)
        os.mkdir(self.out + ".tasks")
        os.symlink(victim_dir, os.path.join(self.out + ".tasks", "0"))
        proc = run(["run", self.job, "-q"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("already exists", proc.stderr)
        self.assertEqual(os.listdir(victim_dir), [])


if __name__ == "__main__":
    unittest.main()
