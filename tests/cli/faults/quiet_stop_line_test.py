"""A stop under `run -q` (SIGTERM to one rank: exit 3) prints one line, as fail_fast and
max_failures do under -q (issue 39's trial: it printed nothing, while getting-started says -q
loses nothing): that it stopped and by what, how many tasks are pending (the count status gives)
and that --resume finishes the job."""
import os
import re
import signal
import unittest

from harness import kill_task_processes, run, run_and_signal_rank, scratch_dir, status_json, wait_for_no_ranks
from jobs import write_job

JOB = """
name: quiet
task: exec
sweep: {a: {range: [0, 40, 1]}}
schedule: dynamic
exec:
  argv: [sh, -c, 'sleep 0.3; echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/quiet.h5}
"""


class QuietStopLineTest(unittest.TestCase):
    def test_a_stop_says_one_line_under_q(self):
        work = scratch_dir(self)
        self.addCleanup(kill_task_processes, work)
        job = write_job(work, JOB.replace("OUT", work))
        out = os.path.join(work, "quiet.h5")
        code, stdout, err = run_and_signal_rank(["run", job, "-q"], job, 1, signal.SIGTERM, after=1.5,
                                                extra_mpi=("-q",))
        self.assertEqual(wait_for_no_ranks(job, 15), [])
        self.assertEqual(code, 3, err)
        self.assertEqual(stdout.strip(), "", stdout)
        lines = [line for line in err.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, err)
        line = lines[0]
        self.assertRegex(line, r"^shardrun: quiet stopped by .*SIGTERM to rank 1")
        self.assertIn("--resume", line)
        pending = re.search(r": (\d+) of 40 tasks pending", line)
        self.assertIsNotNone(pending, line)
        status_code, report = status_json(out)
        self.assertEqual(status_code, 3, report)
        self.assertGreater(report["pending"], 0, report)
        self.assertEqual(int(pending.group(1)), report["pending"], line)

        resumed = run(["run", job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertEqual(resumed.stderr.strip(), "", "a run that finished says nothing under -q")


if __name__ == "__main__":
    unittest.main()
