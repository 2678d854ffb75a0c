"""A rank killed outright (kill -9, as a crashed host or the OOM killer ends it) under `mpirun -q`,
which prints nothing of its own (issue 35, point 7): the next rank on the node sees its process
gone and prints one line naming the rank and its host before mpirun ends the job (about 2 s
later); what finished is committed. Since no summary came, `status` and the next `run --resume`
say that the last run ended without one, from what is on disk (the lock's holder, each rank's
last commit), and --resume finishes the job."""
import os
import re
import signal
import socket
import unittest

from harness import kill_task_processes, run, run_and_signal_rank, scratch_dir, status_json, \
    wait_for_no_task_processes
from jobs import h5py_module, write_job

TASKS = 80

JOB = f"""
name: lost
task: exec
sweep: {{a: {{range: [0, {TASKS}, 1]}}}}
exec:
  argv: [sh, -c, 'sleep 0.1']
output: {{path: OUT}}
"""


class LostRankTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.addCleanup(kill_task_processes, self.work)
        self.out = os.path.join(self.work, "lost.h5")
        self.job = write_job(self.work, JOB.replace("OUT", self.out))

    def test_a_killed_rank_is_named_under_mpirun_q(self):
        code, out, err = run_and_signal_rank(["run", self.job, "-q"], self.job, 1, signal.SIGKILL, 1.5, np=2,
                                             extra_mpi=("-q",))

        self.assertNotEqual(code, 0)
        self.assertEqual(wait_for_no_task_processes(self.work, 10), [])
        lost = [line for line in err.splitlines() if " is gone (" in line]
        self.assertEqual(len(lost), 1, f"stdout:\n{out}\nstderr:\n{err}")
        self.assertRegex(lost[0], rf"^shardrun: rank 1 on {re.escape(socket.gethostname())} is gone "
                                  r"\(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\): its process ended without a word")
        self.assertIn("run again with --resume", lost[0])
        status = status_json(self.out)[1]
        self.assertIsNotNone(status, "nothing was committed before mpirun ended the job")
        self.assertGreater(status["pending"], 0, "the kill came after the last task: nothing was tested")
        self.assertEqual(len(status["unfinished_runs"]), 1, status)
        said = status["unfinished_runs"][0]
        self.assertTrue(said.startswith("the last run ended without a summary"), said)
        self.assertIn("rank 1 on", said, "status guesses instead of quoting the line the run recorded")
        self.assertIn(" is gone (", said, "status guesses instead of quoting the line the run recorded")
        self.assertIn(f" on {socket.gethostname()} since ", said, "the lock's holder is not named")
        self.assertRegex(said, r"last commit per rank \(UTC\): rank 0 \d\d:\d\d:\d\d")
        text = run(["status", self.out])
        self.assertIn("  the last run ended without a summary", text.stdout)

        resumed = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        self.assertIn("shardrun: resuming: the last run ended without a summary", resumed.stderr)
        self.assertEqual(status_json(self.out)[1]["unfinished_runs"], [], "a finished run still reads as unfinished")
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(set(f["tasks/status"][:].tolist()), {1})

    def test_a_run_stopped_in_order_is_not_called_killed(self):
        # A drain (SIGUSR1) or a stop (SIGTERM) ends with its summary, exit 3: neither status
        # nor the resume may say the ranks were killed, and no rank is named gone.
        for sig in (signal.SIGUSR1, signal.SIGTERM):
            with self.subTest(signal=sig.name):
                code, out, err = run_and_signal_rank(["run", self.job, "--force"], self.job, 1, sig, after=1.5,
                                                     extra_mpi=("-q",))
                self.assertEqual(code, 3, out + err)
                self.assertIn("INTERRUPTED", out + err)
                self.assertNotIn(" is gone (", out + err)
                status = status_json(self.out)[1]
                self.assertEqual(status["unfinished_runs"], [], status)
                self.assertEqual(status["unfinished_elements"], [0], status)
                resumed = run(["run", self.job, "-q", "--resume"], np=2, extra_mpi=("-q",))
                self.assertEqual(resumed.returncode, 0, resumed.stderr)
                self.assertNotIn("ended without a summary", resumed.stderr)

    def test_a_run_that_ends_normally_names_nobody(self):
        proc = run(["run", self.job, "-q"], np=2, extra_mpi=("-q",))

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn(" is gone (", proc.stderr)


if __name__ == "__main__":
    unittest.main()
