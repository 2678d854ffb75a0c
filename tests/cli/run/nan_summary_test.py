"""Issue 37, point 7: ok tasks that return NaN for a scalar float result are counted per field in
the summary (text and --progress json), at 1 and 2 ranks; arrays, whose padding is NaN by design,
are not counted, and a run without NaN says nothing of it."""
import json
import unittest

from harness import run, scratch_dir
from jobs import write_job


def nan_job(work, nan_tasks):
    cases = " ".join(f"{a}) v=NaN ;;" for a in nan_tasks)
    return write_job(work, f"""\
        name: nans
        task: exec
        sweep: {{a: [0, 1, 2, 3, 4]}}
        output: {{path: {work}/out.h5}}
        exec:
          argv: [sh, -c, 'case $SHARDRUN_PARAM_A in {cases} *) v=1.5 ;; esac; echo "{{{{\\"loss\\": $v, \\"acc\\": 0.5, \\"curve\\": [1.0, NaN]}}}}" > $SHARDRUN_RESULT']
          results: {{loss: float64, acc: float32, curve: [float64, 2]}}
        """)


class NanSummaryTest(unittest.TestCase):
    def test_nan_results_are_counted_per_field(self):
        for np in (1, 2):
            with self.subTest(np=np):
                work = scratch_dir(self)
                job = nan_job(work, [1, 3])
                text = run(["run", job, "--progress", "plain"], np=np)
                self.assertEqual(text.returncode, 0, text.stdout + text.stderr)
                self.assertIn("5 ok", text.stdout)
                self.assertIn("NaN results: loss in 2 tasks (recorded ok, with NaN stored)", text.stdout)
                self.assertNotIn("acc in", text.stdout)
                self.assertNotIn("curve", text.stdout)
                rerun = run(["run", job, "--progress", "json", "--force"], np=np)
                self.assertEqual(rerun.returncode, 0, rerun.stderr)
                summary = [json.loads(line) for line in rerun.stdout.splitlines() if '"summary"' in line][-1]
                self.assertEqual(summary["nan_results"], {"loss": 2})

    def test_no_nan_no_line(self):
        work = scratch_dir(self)
        done = run(["run", nan_job(work, []), "--progress", "plain"], np=1)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertNotIn("NaN results", done.stdout)


if __name__ == "__main__":
    unittest.main()
