"""`shardrun submit --to slurm`: --account, --qos, --mem, --cpus-per-task, the --sbatch pass-through,
merge.sbatch's own partition and time, an array of multi-node elements, and the refusals (exit 2,
one line, nothing written)."""
import unittest

from submit_support import Submitted, expect_refused


def sbatch_lines(text):
    return [line for line in text.splitlines() if line.startswith("#SBATCH ")]


class SlurmOptionsTest(unittest.TestCase):
    def test_options_reach_the_array_job(self):
        s = Submitted(self, "slurm", "--account", "proj-42", "--qos", "gpu-long", "--mem", "64G", "--cpus-per-task", "8",
                      "--sbatch=--constraint=a100", "--sbatch", "--exclusive", "--sbatch", "reservation=maint",
                      "--partition", "gpu", "--time", "1-00:00:00", "--dry-run")
        lines = sbatch_lines(s.text("run.sbatch"))
        for line in ["--account=proj-42", "--qos=gpu-long", "--mem=64G", "--cpus-per-task=8", "--constraint=a100",
                     "--exclusive", "--reservation=maint", "--partition=gpu", "--time=1-00:00:00"]:
            self.assertIn("#SBATCH " + line, lines)
        # Pass-through lines come in the order given, after shardrun's own.
        self.assertLess(lines.index("#SBATCH --constraint=a100"), lines.index("#SBATCH --exclusive"))
        self.assertLess(lines.index("#SBATCH --cpus-per-task=8"), lines.index("#SBATCH --constraint=a100"))
        # A step does not inherit the job's --cpus-per-task since Slurm 22.05 (Debian 12's): srun gets it too.
        self.assertIn('srun --mpi=pmix --cpus-per-task=8 "$shardrun" run "$job"', s.text("run.sbatch"))

    def test_merge_job_has_its_own_partition_and_time(self):
        # Not the GPU partition's day: a merge needs one CPU for minutes. --account bills both jobs.
        s = Submitted(self, "slurm", "--partition", "gpu", "--time", "1-00:00:00", "--account", "proj", "--qos", "gpu-long",
                      "--mem", "64G", "--sbatch", "--constraint=a100", "--dry-run")
        self.assertEqual(sbatch_lines(s.text("merge.sbatch")), [
            "#SBATCH --job-name=squares-merge", "#SBATCH --time=1:00:00", "#SBATCH --account=proj",
            "#SBATCH --nodes=1", "#SBATCH --ntasks=1", f"#SBATCH --output={s.dir}/slurm-merge-%j.out"])
        s = Submitted(self, "slurm", "--partition", "gpu", "--merge-partition", "cpu", "--merge-time", "20", "--dry-run")
        merge = sbatch_lines(s.text("merge.sbatch"))
        self.assertIn("#SBATCH --partition=cpu", merge)
        self.assertIn("#SBATCH --time=20", merge)
        self.assertNotIn("#SBATCH --partition=gpu", merge)

    def test_no_options_no_lines(self):
        s = Submitted(self, "slurm", "--dry-run")
        for option in ("--account", "--qos", "--mem", "--cpus-per-task", "--constraint"):
            self.assertNotIn(option, s.text("run.sbatch"))
        self.assertIn('srun --mpi=pmix "$shardrun" run "$job"', s.text("run.sbatch"))

    def test_array_of_multinode_elements(self):
        # What Slurm does natively (and AWS and Google Cloud cannot): N elements of M nodes each.
        lines = sbatch_lines(Submitted(self, "slurm", "--array", "3", "--nodes", "2", "--dry-run").text("run.sbatch"))
        self.assertIn("#SBATCH --array=0-2", lines)
        self.assertIn("#SBATCH --nodes=2", lines)

    def test_refusals(self):
        for option, value in [("--vcpus", "4"), ("--memory", "8G"), ("--shm-size", "1G"), ("--machine-type", "n1-standard-8")]:
            expect_refused(self, "--to", "slurm", f"{option}={value}",
                           needle=f"{option} is a cloud option; it has no meaning for --to slurm")
        expect_refused(self, "--to", "slurm", "--spot", needle="--spot is a cloud option")
        for value in ("lots", "4GB", "-1", "1.5G"):
            expect_refused(self, "--to", "slurm", f"--mem={value}", needle=f"--mem '{value}' is not an sbatch memory size")
        expect_refused(self, "--to", "slurm", "--cpus-per-task", "-1", needle="--cpus-per-task -1 must be at least 1")
        expect_refused(self, "--to", "slurm", "--account", "two words", needle="--account 'two words' is not one word")
        expect_refused(self, "--to", "slurm", "--merge-time", "soon", needle="--merge-time 'soon' is not a time limit")
        expect_refused(self, "--to", "slurm", "--sbatch=-C a100", needle="--sbatch '-C a100' is not an sbatch option")
        expect_refused(self, "--to", "slurm", "--sbatch=--constraint=a\nb", needle="--sbatch must be one line")
        # Issue 35, point 11: a valued option given bare was written as a bare #SBATCH line.
        expect_refused(self, "--to", "slurm", "--sbatch", "constraint", needle="--sbatch 'constraint' needs a value: "
                                                                              "--sbatch constraint=<value>")
        # An option shardrun writes itself names the submit option that sets it.
        for line, instead in [("--time=2:00:00", "use --time"), ("--array=0-3", "use --array"),
                              ("--gpus-per-task=2", "use --gpus-per-rank"), ("--mem=4G", "use --mem")]:
            expect_refused(self, "--to", "slurm", f"--sbatch={line}", needle=f"--sbatch '{line}': shardrun writes")
            expect_refused(self, "--to", "slurm", f"--sbatch={line}", needle=instead)

    def test_the_drain_signal_leads_by_drain_timeout_and_requeues_are_capped(self):
        # Issue 35, point 1. The job's drain_timeout is 90 s (the default): USR1 comes 120 s before the limit.
        s = Submitted(self, "slurm", "--time", "10", "--dry-run")
        script = s.text("run.sbatch")
        self.assertIn("#SBATCH --signal=B:USR1@120", sbatch_lines(script))
        self.assertIn('[ "$status" -eq 4 ]', script, "a drain without progress (exit 4) is never requeued")
        self.assertIn('[ "$restarts" -ge 20 ]', script, "at most --max-requeues (default 20) requeues")
        s = Submitted(self, "slurm", "--sbatch", "signal=B:USR1@600", "--max-requeues", "3", "--dry-run")
        script = s.text("run.sbatch")
        self.assertEqual([l for l in sbatch_lines(script) if "--signal" in l], ["#SBATCH --signal=B:USR1@600"])
        self.assertIn('[ "$restarts" -ge 3 ]', script)

    def test_a_time_limit_inside_the_drain_lead_is_refused(self):
        expect_refused(self, "--to", "slurm", "--time", "2",
                       needle="--time 2 (120 s) is not longer than the drain's lead, 120 s before the time limit "
                              "(drain_timeout 90 s + 30 s)")
        expect_refused(self, "--to", "slurm", "--sbatch", "signal=B:USR1@60",
                       needle="--sbatch signal=B:USR1@60 gives the drain 60 s, but the job's drain_timeout is 90 s")
        for line in ("signal=USR1@600", "signal=B:TERM@600", "--signal=B:USR1"):
            expect_refused(self, "--to", "slurm", "--sbatch", line,
                           needle="the signal must be B:USR1@<seconds before the time limit>")
        expect_refused(self, "--to", "slurm", "--max-requeues", "-1", needle="--max-requeues -1 must be 0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
