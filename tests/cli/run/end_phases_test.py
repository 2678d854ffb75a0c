"""The end of a run (issue 36, point 5), phase by phase: `--progress json` prints one
{"event":"end_phase"} line per phase as it ends, in order (wind_down, last_commit, master,
consolidation, teardown, mpi_finalize), each with a number of seconds (the master's with its
file's size in bytes, the file on disk), all before the summary line, whose "end" lists the same
phases and their sum. The human summary's `end:` line names them. At 1, 2 and 4 ranks; layout
single and a run with a failed task end the same way; an interrupted one has no master. No timing is asserted."""
import os
import signal
import unittest

from end_phases_check import ORDER, check_end_phases
from harness import run, run_and_signal_rank, scratch_dir
from jobs import write_job


class EndPhasesTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.output = os.path.join(self.work, "end.h5")

    def job(self, argv="[true]", tasks=12, layout="shards"):
        return write_job(self.work, f"""
name: end
task: exec
sweep: {{i: {{range: [0, {tasks}, 1]}}}}
exec: {{argv: {argv}}}
output: {{path: {self.output}, layout: {layout}}}
""")

    def check_phases(self, stdout, order):
        return check_end_phases(self, stdout, order)

    def test_json_phases_in_order_at_1_2_and_4_ranks(self):
        for np in (None, 2, 4):
            with self.subTest(np=np):
                proc = run(["run", self.job(), "--progress", "json", "--force"], np=np)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                phases, summary = self.check_phases(proc.stdout, ORDER)
                master = next(p for p in phases if p["phase"] == "master")
                self.assertEqual(master["bytes"], os.path.getsize(self.output))
                self.assertEqual(summary["ok"], 12)

    def test_layout_single_ends_with_the_same_phases(self):
        proc = run(["run", self.job(layout="single"), "--progress", "json"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        _, summary = self.check_phases(proc.stdout, ORDER)
        # Its rows are written collectively once the loops end: that commit is the last one.
        self.assertTrue(all(r["final_commit_seconds"] >= 0 for r in summary["ranks"]), summary["ranks"])

    def test_plain_summary_names_every_phase(self):
        proc = run(["run", self.job(), "--progress", "plain"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("  end: ")]
        self.assertEqual(len(lines), 1, proc.stdout)
        line = lines[0]
        self.assertRegex(line, r"^  end: \d+\.\d\d s from the last task's end to MPI_Finalize: ")
        words = ["wind-down", "last commit", "master", "consolidation", "teardown", "MPI_Finalize"]
        at = [line.index(f"{w} ", line.index(": ") + 2) for w in words]
        self.assertEqual(at, sorted(at), line)
        self.assertRegex(line, r"master \d+\.\d\d s \(\d+\.\d MB, \d+ MB/s\)")

    def test_failed_task_ends_with_the_same_phases(self):
        proc = run(["run", self.job(argv='[sh, -c, "exit $((SHARDRUN_PARAM_I == 3))"]'), "--progress", "json"], np=2)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        _, summary = self.check_phases(proc.stdout, ORDER)
        self.assertEqual((summary["ok"], summary["failed"]), (11, 1))

    def test_interrupted_run_has_no_master_phase(self):
        job = self.job(argv="[sleep, '0.5']", tasks=40)
        code, out, err = run_and_signal_rank(["run", job, "--progress", "json"], job, 0, signal.SIGTERM, after=1.5)
        self.assertEqual(code, 3, out + err)
        self.check_phases(out, ["wind_down", "last_commit", "consolidation", "teardown", "mpi_finalize"])


if __name__ == "__main__":
    unittest.main()
