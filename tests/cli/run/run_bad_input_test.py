"""Bad input: exit 2, one line naming the file:line:col and the field, nothing written."""
import os
import unittest

from harness import run, scratch_dir
from jobs import write_job

GOOD = """\
name: good
task: noop
sweep:
  alpha: [0.1, 0.2]
data: {items: 100, chunk: 10}
output: {path: OUT/good.h5}
"""


class BadInputTest(unittest.TestCase):
    def expect_bad(self, text, *needles, np=None, extra=()):
        work = scratch_dir()
        job = write_job(work, text.replace("OUT", work))
        proc = run(["run", job, *extra], np=np)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        for needle in needles:
            self.assertIn(needle.replace("JOB", job), lines[0])
        self.assertFalse(os.path.exists(os.path.join(work, "good.h5")))
        self.assertFalse(os.path.exists(os.path.join(work, "good.h5.shards")))
        return lines[0]

    def test_good_job_runs(self):
        work = scratch_dir()
        proc = run(["run", write_job(work, GOOD.replace("OUT", work)), "-q"])
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_missing_job_file(self):
        proc = run(["run", "/no/such/job.yaml"])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("/no/such/job.yaml: cannot read the job file", proc.stderr)

    def test_yaml_syntax_error(self):
        self.expect_bad(GOOD.replace("alpha: [0.1, 0.2]", "alpha: [0.1, 0.2"), "JOB:", "YAML syntax error")

    def test_unknown_key_suggests(self):
        self.expect_bad(GOOD + "scheduel: static\n", "JOB:7:1: scheduel: unknown key (did you mean 'schedule'?)")

    def test_unknown_nested_key(self):
        self.expect_bad(GOOD.replace("chunk: 10", "chunks: 10"), "JOB:5:", "data.chunks", "did you mean 'chunk'")

    def test_wrong_type(self):
        self.expect_bad(GOOD + "retries: lots\n", "JOB:7:10: retries: 'lots' is not an integer")

    def test_empty_sweep(self):
        self.expect_bad(GOOD.replace("[0.1, 0.2]", "[]"), "JOB:4:10: sweep.alpha: is an empty list")

    def test_chunk_zero(self):
        self.expect_bad(GOOD.replace("chunk: 10", "chunk: 0"), "data.chunk: 0 is too small; it must be at least 1")

    def test_negative_items(self):
        self.expect_bad(GOOD.replace("items: 100", "items: -5"), "JOB:5:", "data.items: -5 is too small")

    def test_unknown_argv_param(self):
        text = GOOD.replace("task: noop", "task: exec") + "exec: {argv: [echo, '{alpah}']}\n"
        self.expect_bad(text, "JOB:7:", "exec.argv[1]: {alpah} names no parameter", "alpha")

    def test_gpus_per_task_not_dividing_ranks(self):
        self.expect_bad(GOOD + "gpus_per_task: 3\n", "gpus_per_task: 3 does not divide the 2 ranks", np=2)

    def test_slots_per_rank_with_rank_groups(self):
        self.expect_bad(GOOD + "gpus_per_task: 2\nslots_per_rank: 2\n", "slots_per_rank: must be 1 when gpus_per_task",
                        np=2)

    def test_train_batch_not_split_by_the_group(self):
        text = GOOD.replace("task: noop", "task: train\nparams: {batch: 100}\ngpus_per_task: 3").replace(
            "alpha:", "lr:").replace("data: {items: 100, chunk: 10}\n", "")
        self.expect_bad(text, "params.batch: 100 must be a positive multiple of the group size 3", np=3)

    def test_train_hyperparameter_out_of_range(self):
        text = GOOD.replace("task: noop", "task: train").replace("alpha: [0.1, 0.2]", "lr: [0.1, 50]").replace(
            "data: {items: 100, chunk: 10}\n", "")
        self.expect_bad(text, "JOB:4:13: params.lr: lr = 50 must be in (0, 10]")

    def test_train_unknown_optimizer(self):
        text = GOOD.replace("task: noop", "task: train\nparams: {optimizer: lbfgs}").replace("alpha:", "lr:").replace(
            "data: {items: 100, chunk: 10}\n", "")
        self.expect_bad(text, "params.optimizer: 'lbfgs' is not allowed; allowed: sgd, adam")

    def test_train_nccl_backend_without_nccl_or_gpu(self):
        # This machine has no GPU; a build without CUDA says it has no NCCL instead.
        text = GOOD.replace("task: noop", "task: train\nparams: {backend: nccl}").replace("alpha:", "lr:").replace(
            "data: {items: 100, chunk: 10}\n", "")
        self.expect_bad(text, "params.backend: nccl needs a")

    def test_train_on_cuda_without_a_gpu(self):
        text = GOOD.replace("task: noop", "task: train\ndevice: cuda").replace("data: {items: 100, chunk: 10}\n", "").replace(
            "alpha:", "lr:")
        self.expect_bad(text, "device: cuda, but this rank has no CUDA device")

    def test_output_not_writable(self):
        line = self.expect_bad(GOOD.replace("OUT/good.h5", "/dev/null/sub/good.h5"), "/dev/null/sub")
        self.assertIn("output", line)

    def test_bad_override(self):
        self.expect_bad(GOOD, "--set schedule: 'sometimes' is not allowed", extra=["--set", "schedule=sometimes"])

    def test_unknown_option(self):
        proc = run(["run", "--frobnicate"])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("frobnicate", proc.stderr)

    def test_existing_output_needs_resume_or_force(self):
        work = scratch_dir()
        job = write_job(work, GOOD.replace("OUT", work))
        self.assertEqual(run(["run", job, "-q"]).returncode, 0)
        again = run(["run", job, "-q"])
        self.assertEqual(again.returncode, 2)
        self.assertIn("--resume", again.stderr)
        self.assertIn("--force", again.stderr)
        self.assertEqual(run(["run", job, "-q", "--force"]).returncode, 0)

    def check_foreign_output(self, make, *needles, extra=()):
        work = scratch_dir()
        out = os.path.join(work, "good.h5")
        make(out)
        proc = run(["run", write_job(work, GOOD.replace("OUT", work)), "-q", *extra])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        for needle in needles:
            self.assertIn(needle, lines[0])
        self.assertFalse(os.path.exists(out + ".shards"), "a lock or shard folder was left behind")

    def test_output_path_that_is_a_directory(self):
        self.check_foreign_output(os.mkdir, "good.h5 is a directory; output.path names the results file")

    def test_output_path_that_is_not_a_shardrun_file(self):
        def foreign(path):
            with open(path, "w") as f:
                f.write("not HDF5\n")
        self.check_foreign_output(foreign, "good.h5 exists and is not a shardrun results file")
        self.check_foreign_output(foreign, "good.h5 exists and is not a shardrun results file", extra=["--resume"])

    def test_resume_and_force_together_are_refused_and_keep_the_results(self):
        work = scratch_dir()
        job = write_job(work, GOOD.replace("OUT", work))
        self.assertEqual(run(["run", job, "-q"]).returncode, 0)
        before = os.path.getmtime(os.path.join(work, "good.h5"))

        proc = run(["run", job, "-q", "--resume", "--force", "--set", "retries=1"])

        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--resume and --force contradict each other", proc.stderr)
        self.assertEqual(os.path.getmtime(os.path.join(work, "good.h5")), before)

    # auto_device (issue 26, point 4): the rule is checked with the job, at 1 and 2 ranks.
    def test_auto_device_rule_errors_point_into_the_rule(self):
        for np in (None, 2):
            self.expect_bad(GOOD + 'auto_device: {cpu_if: "alpha < 1 and alhpa > 0"}\n',
                            "JOB:7:38: auto_device.cpu_if: 'alhpa' is not a parameter of this job; did you mean 'alpha'?",
                            np=np)
        self.expect_bad(GOOD + 'auto_device: {cpu_if: "alpha <> 1"}\n', "JOB:7:30: auto_device.cpu_if: '<>' is not an operator")
        self.expect_bad(GOOD + 'auto_device: {cpu_if: "alpha < small"}\n', "JOB:7:32: auto_device.cpu_if: 'small' is not a number")
        self.expect_bad(GOOD + "gpu_fault_limit: none\n", "JOB:7:18: gpu_fault_limit:")


if __name__ == "__main__":
    unittest.main(verbosity=2)
