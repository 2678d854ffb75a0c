"""The read side after a crash (issue 35, point 8): a one-element run killed before it wrote its
results file leaves only committed segments. `table`, `export --grid` and `report` show what it
committed, with one note on stderr that it stopped and that `run --resume` finishes it (not the
`merge` an array job's element needs); after the resume, `table` has every task."""
import json
import os
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, kill_every_rank, run, scratch_dir, status_json
from jobs import h5py_module, write_job

JOB = """
name: stopped
task: exec
sweep: {{a: {{range: [0, 400, 1]}}}}
exec:
  argv: [sh, -c, 'sleep 0.05; echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {out}}}
"""


class StoppedOutputTest(unittest.TestCase):
    def test_a_killed_run_reads_as_stopped_and_resume_finishes_it(self):
        work = scratch_dir()
        out = os.path.join(work, "stopped.h5")
        job = write_job(work, JOB.format(out=out))
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            deadline = time.time() + 60
            while time.time() < deadline:
                code, report = status_json(out)
                if report and report.get("ok", 0) > 0:
                    break
                time.sleep(0.1)
            kill_every_rank(job)  # a node lost: no rank writes the results file
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertFalse(os.path.exists(out), "the killed run wrote its results file")
        committed = status_json(out)[1]["ok"]
        self.assertGreater(committed, 0)
        self.assertLess(committed, 400)

        table = run(["table", out, "--json"])
        self.assertEqual(table.returncode, 0, table.stderr)
        rows = json.loads(table.stdout)
        self.assertEqual(len(rows), committed)
        self.assertTrue(all(row["status"] == "ok" and row["v"] == row["a"] for row in rows), rows[:3])
        note = table.stderr.strip().splitlines()
        self.assertEqual(len(note), 1, table.stderr)
        self.assertIn(f"stopped: {committed} of 400 committed", note[0])
        self.assertIn("--resume", note[0])
        self.assertNotIn("merge", note[0])

        grid = os.path.join(work, "grid.nc")
        exported = run(["export", out, "--grid", grid])
        self.assertEqual(exported.returncode, 0, exported.stderr)
        self.assertIn("stopped:", exported.stderr)
        with h5py_module().File(grid, "r") as f:
            values = f["v"][:]
        self.assertEqual(int((values == values).sum()), committed)  # the rest keep the fill value, NaN

        resumed = run(["run", job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        table = run(["table", out, "--json"])
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertEqual(len(json.loads(table.stdout)), 400)
        self.assertEqual(table.stderr, "")


if __name__ == "__main__":
    unittest.main()
