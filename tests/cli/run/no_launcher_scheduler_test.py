"""A run started without mpirun records scheduler `none` (docs/results.md), as `info` says, and
under mpirun `mpirun` (issue 39's trial: a singleton recorded `mpirun` while info said "launched
by pmix"). Read back from the master and element.json."""
import json
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

JOB = """
task: exec
sweep: {a: [1, 2]}
exec:
  argv: ['true']
output: {path: OUT/s.h5}
"""


class NoLauncherSchedulerTest(unittest.TestCase):
    def recorded(self, np):
        work = scratch_dir(self)
        job = write_job(work, JOB.replace("OUT", work))
        proc = run(["run", job, "-q"], np=np)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with h5py_module().File(os.path.join(work, "s.h5"), "r") as f:
            master = f.attrs["scheduler"]
            master = master.decode() if isinstance(master, bytes) else str(master)
        with open(os.path.join(work, "s.h5.shards", "a0", "element.json")) as f:
            element = json.load(f)["metadata"]["scheduler"]
        return master, element

    def test_without_mpirun_it_is_none(self):
        self.assertEqual(self.recorded(None), ("none", "none"))
        info = run(["info"])
        self.assertEqual(info.returncode, 0, info.stderr)
        line = [l for l in info.stdout.splitlines() if l.strip().startswith("scheduler")]
        self.assertEqual(line, ["  scheduler   none"], info.stdout)

    def test_under_mpirun_it_is_mpirun(self):
        self.assertEqual(self.recorded(2), ("mpirun", "mpirun"))


if __name__ == "__main__":
    unittest.main()
