"""--resume with another output.layout than the run it continues: refused (exit 2, one line),
and the results already written stay as they were. (Before, a shards run resumed as single
ended with complete=True while the shards' rows were pending.)"""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

JOB = r"""
name: layout
task: exec
sweep: {a: {range: [0, 12, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/layout.h5, layout: THE_LAYOUT}
"""


class ResumeLayoutTest(unittest.TestCase):
    def check(self, first, second):
        work = scratch_dir()
        job = write_job(work, JOB.replace("THE_LAYOUT", first).replace("OUT", work))
        out = os.path.join(work, "layout.h5")
        self.assertEqual(run(["run", job, "-q"], np=2).returncode, 0)

        proc = run(["run", job, "-q", "--resume", "--set", f"output.layout={second}"], np=2)

        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(f"was written with output.layout {first}; --resume it with the same layout", lines[0])
        with h5py_module().File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(list(f["results/v"][:]), [float(a) for a in range(12)])

    def test_shards_then_single(self):
        self.check("shards", "single")

    def test_single_then_shards(self):
        self.check("single", "shards")


if __name__ == "__main__":
    unittest.main()
