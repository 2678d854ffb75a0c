"""`shardrun submit` ignores no option (issue 34, point 7) and names no path of this machine that the
cloud containers cannot see (point 2). Every option of `submit --help` is decided per target in
USED_BY below: an option a target does not use, or a value it cannot honour, is exit 2 with one line
and nothing written. A local output on a cloud target needs --shared-fs, the folder the containers
mount at the same path, and everything the files name must lie under it."""
import json
import os
import re
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job
from submit_support import JOB, Submitted, expect_refused

TARGETS = ("slurm", "aws-batch", "gcp-batch")
EVERY = set(TARGETS)
CLOUDS = {"aws-batch", "gcp-batch"}

# Each option of `submit --help`: the targets that use it, and a value to give it (None: a switch).
# A new option fails test_every_option_is_decided until it is entered here.
USED_BY = {
    "job": (EVERY, None), "to": (EVERY, None), "help": (EVERY, None),
    "array": (EVERY, "2"), "nodes": (EVERY, "1"), "ranks-per-node": (EVERY, "1"), "gpus-per-rank": (EVERY, "0"),
    "time": (EVERY, "90"), "workdir": (EVERY, "."), "dry-run": (EVERY, None), "set": (EVERY, "retries=1"),
    "shardrun": (EVERY, "shardrun"),
    "image": (CLOUDS, "registry.example/shardrun:1"), "vcpus": (CLOUDS, "2"), "memory": (CLOUDS, "4G"),
    "shm-size": (CLOUDS, "1G"), "spot": (CLOUDS, None), "shared-fs": (CLOUDS, "/mnt/efs"),
    "gpu-type": ({"gcp-batch"}, "nvidia-l4"), "machine-type": ({"gcp-batch"}, "n2-standard-4"),
    "partition": ({"slurm"}, "gpu"), "account": ({"slurm"}, "proj"), "qos": ({"slurm"}, "high"),
    "mem": ({"slurm"}, "4G"), "cpus-per-task": ({"slurm"}, "2"), "sbatch": ({"slurm"}, "constraint=a100"),
    "merge-partition": ({"slurm"}, "short"), "merge-time": ({"slurm"}, "10"), "max-requeues": ({"slurm"}, "3"),
    "job-role": ({"aws-batch"}, "arn:aws:iam::123456789012:role/shardrun-jobs"),
    "service-account": ({"gcp-batch"}, "runner@my-project.iam.gserviceaccount.com"),
}


def help_options():
    return set(re.findall(r"^\s+--([a-z][a-z-]*)", run(["submit", "--help"]).stdout, re.M))


def bucket_job(extra=""):
    return JOB.replace("out/squares.h5", "s3://bucket/runs/squares.h5") + extra


def refused(test, job_text, *args, needle):
    """`shardrun submit` of `job_text` exits 2 with one line holding `needle` and writes nothing."""
    work = scratch_dir(test)
    job = write_job(work, job_text)
    before = sorted(os.listdir(work))
    proc = run(["submit", job, *args], cwd=work)
    test.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    test.assertEqual(len(lines), 1, proc.stderr)
    test.assertIn(needle, lines[0])
    test.assertEqual(sorted(os.listdir(work)), before, "nothing may be written")
    return lines[0]


class EveryOptionTest(unittest.TestCase):
    def test_every_option_is_decided(self):
        undecided = help_options() - set(USED_BY)
        self.assertEqual(undecided, set(), "decide which targets use these options (USED_BY in this file)")

    def test_an_option_the_target_does_not_use_is_refused(self):
        for option in sorted(help_options() & set(USED_BY)):
            targets, value = USED_BY[option]
            for target in sorted(set(TARGETS) - targets):
                with self.subTest(option=option, target=target):
                    given = [f"--{option}"] + ([] if value is None else [value])
                    # --dry-run: a refusal that regressed must not reach a real sbatch.
                    line = expect_refused(self, "--to", target, "--dry-run", *given, needle=f"--{option}")
                    self.assertRegex(line, f"--{option} is an? .*option")


class ValuesNotHonouredTest(unittest.TestCase):
    def test_vcpus_zero_is_refused_not_made_one(self):
        for target in sorted(CLOUDS):
            expect_refused(self, "--to", target, "--vcpus", "0", needle="--vcpus 0 must be at least 1")

    def test_gpu_type_on_aws_batch(self):
        line = expect_refused(self, "--to", "aws-batch", "--gpus-per-rank", "1", "--gpu-type", "nvidia-l4",
                              needle="--gpu-type is a Google Cloud option")
        self.assertIn("instanceTypes choose the GPU", line)

    def test_gpu_type_without_gpus_on_google_is_no_cpu_vm(self):
        expect_refused(self, "--to", "gcp-batch", "--gpu-type", "nvidia-l4",
                       needle="--gpu-type nvidia-l4 without --gpus-per-rank: the VM would get no GPU")

    def test_gpu_type_against_a_machine_type_with_other_gpus(self):
        expect_refused(self, "--to", "gcp-batch", "--gpus-per-rank", "1", "--gpu-type", "nvidia-tesla-t4",
                       "--machine-type", "g2-standard-8",
                       needle="--machine-type g2-standard-8 comes with nvidia-l4 GPUs, not --gpu-type nvidia-tesla-t4")

    def test_what_google_uses_is_still_written(self):
        s = Submitted(self, "gcp-batch", "--gpus-per-rank", "1", "--gpu-type", "nvidia-l4")
        policy = s.json("job.json")["allocationPolicy"]["instances"][0]["policy"]
        self.assertEqual(policy["machineType"], "g2-standard-8")


class ContainerPathsTest(unittest.TestCase):
    def test_local_output_without_shared_fs(self):
        for target in sorted(CLOUDS):
            work = scratch_dir(self)
            job = write_job(work, JOB)
            proc = run(["submit", job, "--to", target], cwd=work)
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            line = proc.stderr.strip()
            self.assertEqual(len(line.splitlines()), 1, proc.stderr)
            self.assertIn(f"output.path {work}/out/squares.h5 is on this machine's disk", line)
            self.assertIn("write output.path as s3://BUCKET/... or gs://BUCKET/...", line)
            self.assertIn("--shared-fs PATH", line)
            self.assertEqual(sorted(os.listdir(work)), ["job.yaml"], "nothing may be written")

    def test_local_output_outside_shared_fs(self):
        refused(self, JOB, "--to", "aws-batch", "--shared-fs", "/mnt/efs",
                needle="out/squares.h5 is not under --shared-fs /mnt/efs, so the containers would not see it")

    def test_workdir_outside_shared_fs(self):
        work = scratch_dir(self)
        other = scratch_dir(self)
        job = write_job(work, JOB)
        proc = run(["submit", job, "--to", "gcp-batch", "--shared-fs", work, "--workdir", other], cwd=work)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(f"the workdir (--workdir, else the current folder) {other} is not under --shared-fs {work}",
                      proc.stderr)
        self.assertEqual(sorted(os.listdir(work)), ["job.yaml"], "nothing may be written")

    def test_relative_shared_fs(self):
        expect_refused(self, "--to", "aws-batch", "--shared-fs", "mnt/efs",
                       needle="--shared-fs mnt/efs: give the absolute path the containers mount")

    def test_shared_fs_with_nothing_on_it(self):
        refused(self, bucket_job(), "--to", "aws-batch", "--shared-fs", "/mnt/efs", "--dry-run",
                needle="--shared-fs /mnt/efs: the job names nothing on it (output.path s3://bucket/runs/squares.h5 "
                       "is in a bucket")

    def test_local_input_with_a_bucket_output(self):
        h5py = h5py_module()
        job_text = "name: squares\ntask: noop\ndata: {input: in.h5:/x, chunk: 4}\noutput: {path: s3://bucket/runs/squares.h5}\n"
        work = scratch_dir(self)
        with h5py.File(os.path.join(work, "in.h5"), "w") as f:
            f["x"] = list(range(8))
        job = write_job(work, job_text)
        proc = run(["submit", job, "--to", "aws-batch", "--dry-run"], cwd=work)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(f"data.input: {work}/in.h5 is on this machine's disk", proc.stderr)
        self.assertEqual(sorted(os.listdir(work)), ["in.h5", "job.yaml"], "nothing may be written")
        # Inside the uploaded --workdir, or on the file system the containers mount: accepted.
        for extra in (["--workdir", "."], ["--shared-fs", work]):
            proc = run(["submit", job, "--to", "aws-batch", "--dry-run", *extra], cwd=work)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

    def test_shared_fs_names_the_mount(self):
        s = Submitted(self, "aws-batch")  # --shared-fs <its scratch folder>
        self.assertIn(f"the containers must mount {s.work} (--shared-fs) at the same path", s.proc.stdout)
        container = s.json("array-job.json")["containerProperties"]
        environment = {e["name"]: e["value"] for e in container["environment"]}
        self.assertEqual(environment["SHARDRUN_OUTPUT"], s.output)
        self.assertTrue(json.dumps(container).count(s.work) > 0)

    def test_bucket_output_needs_no_shared_fs(self):
        work = scratch_dir(self)
        job = write_job(work, bucket_job())
        proc = run(["submit", job, "--to", "gcp-batch", "--dry-run"], cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(os.path.join(work, "squares.h5.submit", "gcp-batch", "job.json")) as f:
            self.assertNotIn(work, f.read())


if __name__ == "__main__":
    unittest.main()
