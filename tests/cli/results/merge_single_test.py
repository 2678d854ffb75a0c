"""`shardrun merge` of a finished layout-single output keeps every row: the element's file
was renamed to the output itself, and merge once rewrote it with every task pending."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job


class MergeSingleTest(unittest.TestCase):
    def test_merge_of_a_finished_single_output_keeps_its_rows(self):
        work = scratch_dir()
        job = write_job(work, f"""
name: single
task: exec
sweep: {{a: {{range: [0, 40, 1]}}}}
exec:
  argv: [sh, -c, 'echo "{{{{\\"v\\": $SHARDRUN_PARAM_A}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/single.h5, layout: single}}
""")
        out = os.path.join(work, "single.h5")
        done = run(["run", job, "-q"], np=2)
        self.assertEqual(done.returncode, 0, done.stderr)

        merged = run(["merge", out])

        self.assertEqual(merged.returncode, 0, merged.stderr)
        self.assertIn("40 ok", merged.stdout + merged.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(set(f["tasks/status"][:].tolist()), {1})
            self.assertEqual(list(f["results/v"][:]), [float(a) for a in range(40)])


if __name__ == "__main__":
    unittest.main()
