"""What `merge` says of an array job that did not finish (issue 35, point 11): after a whole-array
stop (elements started, none finished) it names them and says --resume, and names the ones never
started (trial 41a), instead of
"nothing to learn the job from" alone; with one element of three finished, it says it merged 1
of 3 and names the two never started."""
import os
import signal
import subprocess
import time
import unittest

from harness import SHARDRUN, clean_env, live_processes, run, scratch_dir
from jobs import write_job

JOB = """
name: parts
task: exec
sweep: {{a: {{range: [0, 30, 1]}}}}
exec:
  argv: [sh, -c, 'if [ -e {work}/slow ]; then exec sleep 31.7; fi; echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/parts.h5}}
"""


class MergeMessagesTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "parts.h5")
        self.job = write_job(self.work, JOB.format(work=self.work))

    def element(self, index):
        return ["run", self.job, "-q", "--array-index", str(index), "--array-count", "3"]

    def test_a_whole_array_stopped_before_any_element_finished(self):
        open(os.path.join(self.work, "slow"), "w").close()
        procs = [subprocess.Popen([SHARDRUN, *self.element(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=clean_env()) for i in range(2)]  # element 2 never starts
        try:
            # Each element runs its first task (a folder per task appears), then every one is killed.
            deadline = time.time() + 60
            while time.time() < deadline and len(live_processes(
                    "cmdline", lambda c: c[:2] == [b"sleep", b"31.7"])) < 2:
                time.sleep(0.1)
            for proc in procs:
                proc.send_signal(signal.SIGKILL)
        finally:
            for proc in procs:
                proc.kill()
                proc.communicate()
            for pid in live_processes("cmdline", lambda c: c[:2] == [b"sleep", b"31.7"]):
                os.kill(pid, signal.SIGKILL)

        merged = run(["merge", self.out])

        self.assertEqual(merged.returncode, 2, merged.stdout + merged.stderr)  # nothing to merge: merge's own error
        lines = merged.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, merged.stderr)
        self.assertIn("started but not finished: 0, 1", lines[0])
        self.assertIn("--resume", lines[0])
        # The one never started is named too (trial 41a: it was not).
        self.assertIn("never started: 2, run them, then merge", lines[0])

    def test_one_element_of_three_merged(self):
        self.assertEqual(run(self.element(1)).returncode, 0)

        merged = run(["merge", self.out])

        self.assertEqual(merged.returncode, 1, merged.stdout + merged.stderr)
        self.assertIn("merged 1 of 3 array element(s)", merged.stdout)
        self.assertIn("array elements never started: 0, 2", merged.stderr)


if __name__ == "__main__":
    unittest.main()
