"""A finished run whose results file was damaged or deleted afterwards. The file was the only
copy of the results (the shards went once it was complete), so `status`, `table`, `run --resume`
and `merge` each refuse with one line (exit 2) that says so: restore it, or --force. Before
(issue 39's trial 41b), a deleted file read as "6 pending", `table` called the run stopped, and
--resume ran every task again without a word; a torn one got merge's advice from status."""
import glob
import json
import os
import unittest

from harness import run, scratch_dir
from jobs import write_job

JOB = r"""
name: status-master
task: exec
sweep: {a: {range: [0, 6, 1]}}
exec:
  argv: [sh, -c, 'echo "{{\"v\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/out.h5}
"""


class StatusMasterTest(unittest.TestCase):
    def test_a_torn_master_is_reported_and_merge_leaves_it(self):
        work = scratch_dir()
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.replace("OUT", work))
        self.assertEqual(run(["run", job, "-q"]).returncode, 0)
        os.truncate(out, 1000)

        status = run(["status", out])

        self.assertEqual(status.returncode, 2, status.stdout + status.stderr)
        self.assertIn(f"{out} cannot be read (truncated file", status.stderr)
        self.assertIn("only copy of the results", status.stderr)
        self.assertNotIn("H5Fopen", status.stderr)
        merged = run(["merge", out])
        self.assertEqual(merged.returncode, 2, merged.stdout + merged.stderr)
        self.assertIn(f"{out} cannot be read (truncated file", merged.stderr)
        self.assertIn("only copy of the results", merged.stderr)
        # run --resume and a plain run say the same, not "not a shardrun results file" (trial 42).
        for args in (["run", job, "--resume", "-q"], ["run", job, "-q"]):
            proc = run(args)
            self.assertEqual(proc.returncode, 2, f"{args}: {proc.stdout}{proc.stderr}")
            self.assertIn(f"{out} cannot be read (truncated file", proc.stderr)
            self.assertIn("only copy of the results", proc.stderr)
        self.assertEqual(os.path.getsize(out), 1000)

    def test_a_deleted_master_is_lost_work_not_pending_tasks(self):
        work = scratch_dir(self)
        out = os.path.join(work, "out.h5")
        ran = os.path.join(work, "ran")
        job = write_job(work, JOB.replace("OUT", work).replace("echo", f"echo x >> {ran}; echo"))
        self.assertEqual(run(["run", job, "-q"]).returncode, 0)
        os.rename(out, os.path.join(work, "moved.h5"))

        for args in (["status", out], ["status", out, "--json"], ["table", out], ["run", job, "--resume", "-q"],
                     ["run", job, "-q"]):
            proc = run(args)
            self.assertEqual(proc.returncode, 2, f"{args}: {proc.stdout}{proc.stderr}")
            lines = [line for line in proc.stderr.splitlines() if line.strip()]
            self.assertEqual(len(lines), 1, f"{args}: {proc.stderr}")
            self.assertIn(f"{out} is missing, and it is the only copy of the results its tasks committed", lines[0])
            self.assertIn("restore it, or rerun the job with --force", lines[0])
        with open(ran) as f:
            self.assertEqual(len(f.readlines()), 6, "--resume ran tasks again")
        self.assertFalse(os.path.exists(out), "nothing written")
        # The refused runs changed nothing: the file put back, the output is complete and no run
        # is reported as ended without a summary (trial 42: the refusal had rewritten the manifest).
        os.rename(os.path.join(work, "moved.h5"), out)
        status = run(["status", out])
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        self.assertNotIn("without a summary", status.stdout)

    def test_an_array_whose_merged_master_was_deleted(self):
        work = scratch_dir(self)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.replace("OUT", work))
        for index in (0, 1):
            self.assertEqual(run(["run", job, "-q", "--array-index", str(index), "--array-count", "2"]).returncode, 0)
        self.assertEqual(run(["merge", out]).returncode, 0)
        os.remove(out)

        status = run(["status", out])

        self.assertEqual(status.returncode, 2, status.stdout + status.stderr)
        self.assertIn(f"{out} is missing, and it is the only copy", status.stderr)
        self.assertNotIn("merge them", status.stdout)

    def test_a_truncated_segment_is_named_not_silently_pending(self):
        # Trial 41b: status counted its tasks pending and said nothing of the file; --resume warned.
        work = scratch_dir(self)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.replace("OUT", work))
        # One element of two: its segments stay until the merge.
        self.assertEqual(run(["run", job, "-q", "--array-index", "0", "--array-count", "2"]).returncode, 0)
        [segment] = glob.glob(os.path.join(out + ".shards", "a0", "r*", "*.h5"))
        os.truncate(segment, 1000)

        status = run(["status", out])

        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)
        self.assertIn(f"not read: {segment}: cannot be read (truncated file", status.stdout)
        self.assertIn("(run --resume moves it aside and runs them again)", status.stdout)
        self.assertNotIn("H5Fopen", status.stdout)
        report = json.loads(run(["status", out, "--json"]).stdout)
        self.assertEqual(len(report["unreadable_segments"]), 1, report)
        self.assertEqual(report["pending"], 6)


if __name__ == "__main__":
    unittest.main()
