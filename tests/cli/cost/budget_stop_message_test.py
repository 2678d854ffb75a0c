"""The budget's stop message agrees with the end of the run it is printed at (issue 39's trial): the
message is printed in the final summary, after the tasks it counted as running have finished, so it
must not speak of "the tasks still running" (it did: "$0.251 more expected of the tasks still
running" under a summary with nothing running). It gives the figures of the moment it stopped new
tasks, and says so; what was spent then is at most what the results hold once those tasks finished."""
import csv
import io
import re
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import write_job

NODE_HOUR = 3600.0  # dollars: a task-second at share 1/2 (two ranks on the node) costs $0.50
TASKS = 10

JOB = """
name: budgetmsg
task: exec
device: cpu
sweep: {{x: {xs}}}
output: {{path: {out}}}
price: {{node_hour: {node_hour}}}
budget: "${budget:.2f}"
exec:
  argv: [/bin/sleep, "0.4"]
"""

MESSAGE = re.compile(r"budget \$[\d.]+ reached: spent \$(?P<spent>[\d.]+) when it stopped new tasks, with "
                     r"\$(?P<running>[\d.]+) more expected of the tasks running then \(they were let finish\), "
                     r"\$[\d.]+ left")


class BudgetStopMessageTest(unittest.TestCase):
    def test_the_message_speaks_of_the_moment_it_stopped_new_tasks(self):
        work = scratch_dir(self)
        out = f"{work}/out.h5"
        budget = TASKS * 0.4 / 3600 * NODE_HOUR / 2 / 2  # about half of the run
        job = write_job(work, JOB.format(xs=list(range(TASKS)), out=out, node_hour=NODE_HOUR, budget=budget))
        proc = run(["run", job], np=2)
        said = proc.stdout + proc.stderr
        self.assertEqual(proc.returncode, 3, said + task_stderr(out))
        self.assertNotIn("still running", said)
        lines = [line for line in said.splitlines() if "reached: spent" in line]
        self.assertEqual(len(lines), 1, said)
        found = MESSAGE.search(lines[0])
        self.assertIsNotNone(found, lines[0])

        # What was spent when new tasks stopped is at most what the finished tasks' rows add up to.
        table = run(["table", out, "--csv", "--columns", "status,cost_usd"])
        self.assertEqual(table.returncode, 0, table.stdout + table.stderr)
        ok = [row for row in csv.DictReader(io.StringIO(table.stdout)) if row["status"] == "ok"]
        final = sum(float(row["cost_usd"]) for row in ok)
        self.assertGreater(final, 0, table.stdout)
        self.assertLessEqual(float(found["spent"]), final + 0.01, (lines[0], table.stdout))
        self.assertLess(len(ok), TASKS, table.stdout)


if __name__ == "__main__":
    unittest.main()
