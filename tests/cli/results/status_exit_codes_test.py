"""`status`'s exit codes say what the output needs next (issue 35, point 10): 0 every task ok, 1
complete with failed tasks, 3 not complete and no run writing it (run --resume; an array's
elements all finished but not merged too), 4 a run is
writing it now; 2 a bad path. And `status --by-host` sums the tasks per host (ranks, ok, failed,
busy seconds), in the text and in --json's "hosts"."""
import json
import os
import socket
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, kill_every_rank, run, scratch_dir, status_json
from jobs import write_job

# Task 3 fails while WORK/fail exists; every task waits while WORK/gate exists.
JOB = """
name: codes
task: exec
sweep: {{a: {{range: [0, 8, 1]}}}}
exec:
  argv: [sh, -c, 'while [ -e {work}/gate ]; do sleep 0.05; done;
                  if [ {{a}} = 3 ] && [ -e {work}/fail ]; then echo "bad input 3" >&2; exit 5; fi;
                  echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/codes.h5}}
"""


class StatusExitCodesTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "codes.h5")
        self.job = write_job(self.work, JOB.format(work=self.work))

    def mark(self, name, present):
        path = os.path.join(self.work, name)
        if present:
            open(path, "w").close()
        elif os.path.exists(path):
            os.remove(path)

    def test_each_state_has_its_code(self):
        # Running: the tasks wait on the gate; status reads the live output.
        self.mark("gate", True)
        self.mark("fail", True)
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", self.job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            deadline, code = time.time() + 60, None
            while time.time() < deadline:
                code, report = status_json(self.out)
                if report and report["running"]:
                    break
                time.sleep(0.1)
            self.assertEqual(code, 4, "status of a running job")
            kill_every_rank(self.job)  # no run writes it any more, tasks are pending
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        self.assertEqual(status_json(self.out)[0], 3, "status of a stopped, incomplete job")

        # Complete, with task 3 failed.
        self.mark("gate", False)
        self.assertEqual(run(["run", self.job, "-q", "--resume"], np=2).returncode, 1)
        code, report = status_json(self.out)
        self.assertEqual(code, 1, report)
        self.assertEqual((report["ok"], report["failed"], report["pending"]), (7, 1, 0))

        # --by-host: this machine ran every task, on both ranks.
        [host] = report["hosts"]
        self.assertEqual((host["host"], host["ranks"], host["ok"], host["failed"]), (socket.gethostname(), 2, 7, 1))
        self.assertGreater(host["busy_seconds"], 0)
        text = run(["status", self.out, "--by-host"])
        self.assertEqual(text.returncode, 1, text.stderr)
        header = next(line for line in text.stdout.splitlines() if "host" in line and "mean task" in line)
        self.assertEqual(header.split()[:5], ["host", "ranks", "ok", "failed", "busy"])
        row = next(line.split() for line in text.stdout.splitlines() if line.split()[:1] == [socket.gethostname()])
        self.assertEqual(row[1:4], ["2", "7", "1"])
        self.assertNotIn("element  rank", text.stdout)

        # Every task ok.
        self.mark("fail", False)
        self.assertEqual(run(["run", self.job, "-q", "--resume"], np=2).returncode, 0)
        self.assertEqual(status_json(self.out)[0], 0)

        missing = run(["status", os.path.join(self.work, "nothing.h5")])
        self.assertEqual(missing.returncode, 2, missing.stdout + missing.stderr)

    def test_an_array_is_complete_once_merged(self):
        # Trial 41b: both elements finished, not merged, was "complete" (exit 0) while no results
        # file existed, so `status OUT && use OUT` went on to a file that was not there.
        array = self.job.replace(".yaml", "-array.yaml")
        with open(self.job) as f, open(array, "w") as g:
            g.write(f.read().replace("codes.h5", "array.h5"))
        out = os.path.join(self.work, "array.h5")
        # Element 0, merged alone (exit 1: one of two), then element 1: the file lacks element 1's tasks (trial 42).
        self.assertEqual(run(["run", array, "-q", "--array-index", "0", "--array-count", "2"]).returncode, 0)
        self.assertEqual(run(["merge", out]).returncode, 1)
        self.assertEqual(run(["run", array, "-q", "--array-index", "1", "--array-count", "2"]).returncode, 0)
        code, report = status_json(out)
        self.assertEqual(code, 3, report)
        self.assertEqual((report["complete"], report["unmerged"]), (False, True))
        os.remove(out)
        code, report = status_json(out)
        self.assertEqual(code, 3, report)
        self.assertEqual((report["ok"], report["pending"], report["complete"], report["unmerged"]), (8, 0, False, True))
        text = run(["status", out])
        self.assertIn("8 ok, 0 failed, 0 pending — NOT merged", text.stdout)
        self.assertIn(f"all have finished, merge them: shardrun merge {out}", text.stdout)

        self.assertEqual(run(["merge", out]).returncode, 0)
        code, report = status_json(out)
        self.assertEqual(code, 0, report)
        self.assertEqual((report["complete"], report["unmerged"]), (True, False))
        # The merge removed the elements' files: status no longer points at their folders (trial 41b).
        text = run(["status", out])
        self.assertIn("array elements finished: 2 of 2 (0,1); their results are in the merged file", text.stdout)
        self.assertNotIn(".shards/", text.stdout)


if __name__ == "__main__":
    unittest.main()
