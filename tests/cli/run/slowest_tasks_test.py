"""The summary's `slowest:` list holds the slowest tasks that succeeded (issue 39's trials: it listed a
task that failed at once, "#2 0.000 s", as one of the slowest). A failed task is listed once, on its
`failed #N:` line with its reason; the ok tasks fill `slowest:`, in the plain summary and in
--progress json's per-rank "slowest"."""
import json
import os
import re
import unittest

from harness import run, scratch_dir
from jobs import write_job

# Tasks 0 and 1 take a moment and succeed; 2 and 3 are a program that does not exist: they fail at once.
JOB = """
name: slow
task: exec
retries: 0
sweep: {{a: [0, 1, 2, 3]}}
exec:
  argv: [sh, -c, 'if [ {{a}} -ge 2 ]; then exec ./no-such-program; fi; sleep 0.3;
                  echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/slow.h5}}
"""
SLOWEST = re.compile(r"^  slowest: (.*)$", re.M)


class SlowestTasksTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.job = write_job(self.work, JOB.format(work=self.work))

    def test_slowest_lists_the_ok_tasks_and_each_failure_once_as_failed(self):
        done = run(["run", self.job, "--progress", "plain"], np=2)
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
        slowest = SLOWEST.search(done.stdout)
        self.assertIsNotNone(slowest, done.stdout)
        ids = sorted(int(task) for task in re.findall(r"#(\d+) [0-9.]+ s", slowest.group(1)))
        self.assertEqual(ids, [0, 1], f"the ok tasks, and no failed one: {done.stdout}")
        for task in (2, 3):
            self.assertRegex(done.stdout, rf"failed #{task}: exit \d+: ", done.stdout)

        # The same in --progress json's summary, per rank.
        again = run(["run", self.job, "--progress", "json", "--force"], np=2)
        self.assertEqual(again.returncode, 1, again.stdout + again.stderr)
        summary = next(json.loads(line) for line in again.stdout.splitlines()
                       if line.startswith("{") and json.loads(line).get("event") == "summary")
        listed = sorted(entry["task_id"] for rank in summary["ranks"] for entry in rank["slowest"])
        self.assertEqual(listed, [0, 1], summary["ranks"])
        self.assertEqual(sorted(f["task_id"] for rank in summary["ranks"] for f in rank["failures"]), [2, 3])


if __name__ == "__main__":
    unittest.main()
