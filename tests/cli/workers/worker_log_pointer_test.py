"""Where a worker that does not start left its output (issue 39's trial): the worker's error points at
docs/troubleshooting.md#worker-failures, whose section said "the rank's log: `shardrun logs OUT`", but
`shardrun logs OUT` was refused with "name the results file and a task id" and named no log. Now the
section names the log's real path, OUT.tasks/worker-rank<R>.log, which this test checks against a real
run (the file is there and holds what the worker wrote), and `shardrun logs OUT` without a task id
names those logs (exit 2: it still needs a task id to show a task's output)."""
import os
import re
import sys
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import write_job

SECTION = "{#worker-failures}"


def worker_failures_section():
    with open(os.path.join(SOURCE_DIR, "docs", "troubleshooting.md")) as f:
        text = f.read()
    start = text.index(SECTION)
    end = text.find("\n## ", start)
    return text[start:end]


class WorkerLogPointerTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.out = os.path.join(self.work, "w2.h5")
        # A worker that writes a line to stderr, then never says ready: the start-up timeout ends the rank.
        self.job = write_job(self.work, f"""\
            name: w2
            task: exec
            sweep: {{a: [0, 1]}}
            output: {{path: {self.out}}}
            exec:
              mode: worker
              worker_start_timeout: 2s
              argv: [{sys.executable}, -c, "import sys, time; print('loading the model: no GPU', file=sys.stderr, flush=True); time.sleep(60)"]
            """)

    def test_the_page_names_the_log_the_run_wrote(self):
        proc = run(["run", self.job], np=1, timeout=300)
        said = proc.stdout + proc.stderr
        self.assertNotEqual(proc.returncode, 0, said)
        self.assertIn("docs/troubleshooting.md#worker-failures", said)

        section = worker_failures_section()
        self.assertNotRegex(section, r"rank's log: `shardrun logs OUT`\.")
        named = re.findall(r"`OUT(\.tasks/worker-rank)<R>(\.log)`", section)
        self.assertEqual(len(named), 1, section)
        log = self.out + named[0][0] + "0" + named[0][1]
        self.assertTrue(os.path.isfile(log), log)
        with open(log) as f:
            self.assertIn("loading the model: no GPU", f.read())

        # What the section says `shardrun logs OUT` does: it names those logs.
        self.assertIn("`shardrun logs OUT` without a task id names those logs", " ".join(section.split()))
        logs = run(["logs", self.out])
        self.assertEqual(logs.returncode, 2, logs.stdout + logs.stderr)
        self.assertEqual(logs.stdout, "")
        self.assertEqual(len(logs.stderr.strip().splitlines()), 1, logs.stderr)
        self.assertIn(f"the exec workers' own output is in their logs: {log}", logs.stderr)
        # Its example is an id of this job (ids 0 and 1), not a made-up 3 (trial 41b).
        self.assertIn(f"name a task id too (0 to 1), e.g. shardrun logs {self.out} 0;", logs.stderr)

    def test_logs_without_a_task_and_no_worker_logs_keeps_its_message(self):
        logs = run(["logs", self.out])
        self.assertEqual(logs.returncode, 2, logs.stdout + logs.stderr)
        self.assertIn("logs: name the results file and a task id", logs.stderr)


if __name__ == "__main__":
    unittest.main()
