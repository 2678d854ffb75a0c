"""`shardrun submit`: the Slurm scripts (their lines, and their resume / graceful-stop logic run in
bash with fake srun, scancel and scontrol), the AWS Batch and Google Cloud Batch job files field by
field, and bad options. The AWS entrypoint run as AWS would run it: submit_entrypoint_test.py."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import SHARDRUN, SOURCE_DIR, clean_env, run, scratch_dir
from jobs import write_job
from fake_slurm import fake_slurm
from submit_support import Submitted

TASKS = 12

# Result y = x * x; each task also leaves a mark named after its id in $MARKS (set per run).
JOB = r'''
name: squares
task: exec
sweep:
  x: {range: [0, 12, 1]}
output: {path: OUT}
exec:
  argv: [sh, -c, 'touch "$MARKS/{task_id}"; printf "{{\"y\": %d}}" $(( {x} * {x} )) > "$SHARDRUN_RESULT"']
  results: {y: float64}
'''

# Field names of the real APIs (AWS RegisterJobDefinition / SubmitJob, Cloud Batch jobs.create).
AWS_DEFINITION = {"jobDefinitionName", "type", "containerProperties", "nodeProperties", "retryStrategy",
                  "timeout", "platformCapabilities", "tags", "parameters", "propagateTags"}
AWS_CONTAINER = {"image", "command", "environment", "resourceRequirements", "linuxParameters", "volumes",
                 "mountPoints", "jobRoleArn", "executionRoleArn"}
AWS_SUBMIT = {"jobName", "jobQueue", "jobDefinition", "arrayProperties", "retryStrategy", "timeout"}
GCP_JOB = {"taskGroups", "allocationPolicy", "logsPolicy", "labels"}
GCP_TASK_SPEC = {"runnables", "environment", "computeResource", "maxRetryCount", "lifecyclePolicies",
                 "maxRunDuration", "volumes"}


def mpi_env(extra=None):
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
    env.update(extra or {})
    return clean_env(env)


class Submission(Submitted):
    """A job whose tasks leave marks (JOB above) and what `shardrun submit` wrote for it."""

    def __init__(self, test, target, *options):
        super().__init__(test, target, *options, job_text=JOB.replace("OUT", "out/squares.h5"))


class BadOptionsTest(unittest.TestCase):
    def expect_bad(self, *args, job_text=JOB, needle=""):
        work = scratch_dir()
        job = write_job(work, job_text.replace("OUT", "out/squares.h5"))
        proc = run(["submit", job, *args], cwd=work)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(needle, lines[0])
        self.assertFalse(os.path.exists(os.path.join(work, "out")), "nothing may be written")

    def test_bad_options(self):
        # The names come from the targets' table (the usage line prints it), never from a list here.
        usage = run(["submit", "--help"]).stdout.splitlines()[0]
        names = usage.rsplit("--to ", 1)[1].split("|")
        self.assertIn("slurm", names)
        self.expect_bad("--to", "nowhere", needle=", ".join(names[:-1]) + " or " + names[-1])
        self.expect_bad(needle="to")  # --to is required
        self.expect_bad("--to", "slurm", "--array", "0", needle="--array 0 must be at least 1")
        self.expect_bad("--to", "slurm", "--ranks-per-node", "0", needle="--ranks-per-node")
        self.expect_bad("--to", "slurm", "--gpus-per-rank", "-1", needle="--gpus-per-rank")
        self.expect_bad("--to", "slurm", "--time", "soon", needle="--time 'soon'")
        self.expect_bad("--to", "aws-batch", "--partition", "gpu", needle="--partition is a Slurm option")
        self.expect_bad("--to", "gcp-batch", "--nodes", "2", needle="--nodes must be 1")
        self.expect_bad("--to", "aws-batch", "--workdir", "/nonexistent/proj", needle="submit: --workdir /nonexistent/proj: not a folder")

    def test_bad_job_is_refused_as_run_refuses_it(self):
        self.expect_bad("--to", "slurm", job_text=JOB + "retries: lots\n", needle="retries: 'lots' is not an integer")
        self.expect_bad("--to", "aws-batch", "--set", "schedule=sometimes", needle="schedule")
        self.expect_bad("--to", "slurm", "--ranks-per-node", "3", job_text=JOB + "gpus_per_task: 2\n",
                        needle="gpus_per_task: 2 does not divide the 3 ranks")


class SlurmScriptsTest(unittest.TestCase):
    def test_array_script_lines(self):
        s = Submission(self, "slurm", "--array", "3", "--nodes", "2", "--ranks-per-node", "4", "--gpus-per-rank", "1",
                       "--time", "1:30:00", "--partition", "gpu", "--set", "retries=2", "--dry-run")
        script = s.text("run.sbatch")
        for line in ["#SBATCH --array=0-2", "#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4",
                     "#SBATCH --gpus-per-task=1", "#SBATCH --time=1:30:00", "#SBATCH --partition=gpu",
                     "#SBATCH --signal=B:USR1@120", "#SBATCH --requeue", "#SBATCH --job-name=squares",
                     f"#SBATCH --output={s.dir}/slurm-%A_%a.out", f"cd {s.work} || exit 1",
                     f"shardrun={SHARDRUN}", f"output={s.output}", f"job={s.dir}/job.yaml", "trap on_usr1 USR1"]:
            self.assertIn(line + "\n", script)
        self.assertIn('srun --mpi=list 2>&1 | grep -q pmix', script)
        # --job-dir: the copy's relative paths still mean the original job file's folder.
        self.assertIn('srun --mpi=pmix "$shardrun" run "$job" --array-index "$element" --array-count 3 $resume '
                      f'--job-dir {s.work} --set retries=2 &', script)
        self.assertIn('scontrol requeue "$self"', script)
        self.assertNotIn("OMPI_ALLOW_RUN_AS_ROOT", script)
        with open(s.job) as original:
            self.assertEqual(s.text("job.yaml"), original.read())
        merge = s.text("merge.sbatch")
        self.assertIn('"$shardrun" merge "$output"', merge)
        self.assertIn("MERGE INCOMPLETE", merge)
        self.assertIn(script, s.proc.stdout)
        self.assertIn(f"sbatch --parsable --dependency=afterany:<array job id> {s.dir}/merge.sbatch", s.proc.stdout)

    def test_single_job_script_lines(self):
        s = Submission(self, "slurm", "--dry-run")
        script = s.text("run.sbatch")
        for absent in ("--array", "--gpus-per-task", "--partition", "--time"):
            self.assertNotIn(absent, script)
        self.assertIn(f"#SBATCH --output={s.dir}/slurm-%j.out\n", script)

    def test_points_file_is_copied_with_the_job(self):
        work = scratch_dir()
        os.makedirs(os.path.join(work, "jobs"))
        with open(os.path.join(work, "jobs", "pts.json"), "w") as f:
            json.dump([{"x": 2}, {"x": 3}], f)
        job = write_job(os.path.join(work, "jobs"), JOB.replace("OUT", "out/squares.h5").replace(
            "x: {range: [0, 12, 1]}", "points_file: pts.json"))
        proc = run(["submit", job, "--to", "slurm", "--dry-run"], cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        folder = os.path.join(work, "out", "squares.h5.submit", "slurm")
        with open(os.path.join(folder, "points.json")) as f:
            self.assertEqual(json.load(f), [{"x": 2}, {"x": 3}])
        with open(os.path.join(folder, "run.sbatch")) as f:
            self.assertIn(f"--set sweep.points_file={folder}/points.json &", f.read())

    def fake_slurm(self, work, pmix=True):
        return fake_slurm(work, pmix)

    def run_script(self, s, bin_dir, **variables):
        env = clean_env({"PATH": bin_dir + ":" + os.environ["PATH"], **variables})
        return subprocess.run(["bash", s.path("run.sbatch")], capture_output=True, text=True, env=env, timeout=60)

    def srun_args(self, s):
        with open(os.path.join(s.work, "srun.args")) as f:
            return f.read().split()

    def test_resume_logic(self):
        s = Submission(self, "slurm", "--array", "2", "--dry-run")
        bin_dir = self.fake_slurm(s.work)
        fresh = self.run_script(s, bin_dir, SLURM_ARRAY_TASK_ID="1", SLURM_JOB_ID="7")
        self.assertEqual(fresh.returncode, 0, fresh.stderr)
        self.assertNotIn("--resume", self.srun_args(s))
        self.assertEqual(self.srun_args(s)[-6:], ["--array-index", "1", "--array-count", "2", "--job-dir", s.work])
        requeued = self.run_script(s, bin_dir, SLURM_ARRAY_TASK_ID="1", SLURM_RESTART_COUNT="1")
        self.assertEqual(requeued.returncode, 0, requeued.stderr)
        self.assertIn("--resume", self.srun_args(s))
        os.makedirs(s.output + ".shards/a0")
        other = self.run_script(s, bin_dir, SLURM_ARRAY_TASK_ID="1")
        self.assertEqual(other.returncode, 0, other.stderr)
        self.assertNotIn("--resume", self.srun_args(s), "element 0's folder says nothing about element 1")
        started = self.run_script(s, bin_dir, SLURM_ARRAY_TASK_ID="0")
        self.assertEqual(started.returncode, 0, started.stderr)
        self.assertIn("--resume", self.srun_args(s))

    def test_no_pmix_is_one_clear_line(self):
        s = Submission(self, "slurm", "--dry-run")
        proc = self.run_script(s, self.fake_slurm(s.work, pmix=False))
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("srun --mpi=pmix", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(s.work, "srun.args")))

    def test_usr1_drains_the_step_and_requeues_the_element(self):
        s = Submission(self, "slurm", "--array", "4", "--dry-run")
        bin_dir = self.fake_slurm(s.work)
        env = clean_env({"PATH": bin_dir + ":" + os.environ["PATH"], "FAKE_HOLD": "1", "SLURM_JOB_ID": "42",
                         "SLURM_ARRAY_JOB_ID": "40", "SLURM_ARRAY_TASK_ID": "2"})
        proc = subprocess.Popen(["bash", s.path("run.sbatch")], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while not os.path.exists(os.path.join(s.work, "srun.pid")) and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGUSR1)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 3, out + err)
        with open(os.path.join(s.work, "scancel.args")) as f:
            # USR1 to the step: shardrun drains (drain_timeout 90 s fits the 120 s of --signal=B:USR1@120).
            self.assertEqual(f.read().split(), ["--signal=USR1", "40_2"], "this element, not the whole array")
        with open(os.path.join(s.work, "squeue.args")) as f:
            self.assertIn("-j 40_2", f.read(), "the requeue waits until the element's step is gone")
        with open(os.path.join(s.work, "scontrol.args")) as f:
            self.assertEqual(f.read().split(), ["requeue", "40_2"])
        self.assertIn("shardrun: SIGUSR1 to the batch script (time left: unknown;", out)
        self.assertIn("draining array element 2; it will be requeued and resume", out)
        self.assertNotIn("time limit near", out, "a USR1 sent by hand is not Slurm's time limit")

    def test_merge_script_names_missing_elements(self):
        s = Submission(self, "slurm", "--array", "2", "--dry-run")
        marks = scratch_dir()
        first = run(["run", s.path("job.yaml"), "-q", "--array-index", "0", "--array-count", "2"], np=2,
                    cwd=s.work, env={"MARKS": marks, **mpi_env()})
        self.assertEqual(first.returncode, 0, first.stderr)
        merge = subprocess.run(["bash", s.path("merge.sbatch")], capture_output=True, text=True, env=clean_env())
        self.assertEqual(merge.returncode, 1, merge.stdout + merge.stderr)
        self.assertIn("array elements never started: 1", merge.stderr)
        self.assertIn("MERGE INCOMPLETE", merge.stderr)
        second = run(["run", s.path("job.yaml"), "-q", "--array-index", "1", "--array-count", "2"], np=2,
                     cwd=s.work, env={"MARKS": marks, **mpi_env()})
        self.assertEqual(second.returncode, 0, second.stderr)
        merge = subprocess.run(["bash", s.path("merge.sbatch")], capture_output=True, text=True, env=clean_env())
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assertEqual(sorted(map(int, os.listdir(marks))), list(range(TASKS)))


def env_of(container):
    return {e["name"]: e["value"] for e in container["environment"]}


class AwsBatchFilesTest(unittest.TestCase):
    def check_container(self, test_case, container, s, ranks, gpus):
        test_case.assertLessEqual(set(container), AWS_CONTAINER)
        test_case.assertEqual(container["image"], "123456789012.dkr.ecr.us-east-1.amazonaws.com/shardrun:1")
        test_case.assertEqual(container["command"], ["bash", s.path("entrypoint"), s.path("job.yaml"), "--job-dir", s.work,
                                                     "--set", "retries=1"])
        resources = {r["type"]: r["value"] for r in container["resourceRequirements"]}
        # The default sizes (submit_sizes_test.py checks the options): 8 vCPU and 30 GiB per GPU, else 1 and 2 GiB per rank.
        expected = ({"VCPU": str(8 * ranks * gpus), "MEMORY": str(ranks * gpus * 30720), "GPU": str(ranks * gpus)} if gpus
                    else {"VCPU": str(ranks), "MEMORY": str(ranks * 2048)})
        test_case.assertEqual(resources, expected)
        environment = env_of(container)
        test_case.assertEqual(environment["SHARDRUN_RANKS_PER_NODE"], str(ranks))
        test_case.assertEqual(environment["SHARDRUN_OUTPUT"], s.output)
        test_case.assertEqual(environment["SHARDRUN_WORKDIR"], s.work)
        test_case.assertTrue(all(isinstance(v, str) and not k.startswith("AWS_BATCH_") for k, v in environment.items()))

    def submit(self, *options):
        return Submission(self, "aws-batch", "--image", "123456789012.dkr.ecr.us-east-1.amazonaws.com/shardrun:1",
                          "--set", "retries=1", *options)

    def test_array_and_multinode_with_gpus(self):
        # AWS Batch has no multi-node arrays (--array 4 --nodes 3 is refused: submit_sizes_test.py).
        s = self.submit("--array", "4", "--ranks-per-node", "2", "--gpus-per-rank", "1", "--time", "2:00:00")
        array = s.json("array-job.json")
        self.assertLessEqual(set(array), AWS_DEFINITION)
        self.assertEqual((array["type"], array["platformCapabilities"]), ("container", ["EC2"]))
        self.assertEqual(array["timeout"], {"attemptDurationSeconds": 7200})
        self.assertEqual(array["retryStrategy"]["attempts"], 5)
        self.check_container(self, array["containerProperties"], s, 2, 1)
        submit = s.json("array-submit.json")
        self.assertLessEqual(set(submit), AWS_SUBMIT)
        self.assertEqual(submit["arrayProperties"], {"size": 4})
        self.assertEqual(submit["jobDefinition"], array["jobDefinitionName"])
        # An array: submit.sh submits it, then the merge job with a dependency on it (cloud_merge_test.py runs it).
        self.assertIn(f"bash {s.path('submit.sh')} [JOB_QUEUE]", s.proc.stdout)
        script = s.text("submit.sh")
        self.assertIn('register-job-definition --cli-input-json "file://$here/array-job.json"', script)
        self.assertIn('register-job-definition --cli-input-json "file://$here/merge-job.json"', script)
        self.assertIn('--depends-on "jobId=$array_job"', script)
        merge = s.json("merge-job.json")
        self.assertLessEqual(set(merge), AWS_DEFINITION)
        self.assertEqual(merge["containerProperties"]["command"], ["bash", s.path("entrypoint"), "--merge"])
        self.assertEqual(env_of(merge["containerProperties"])["SHARDRUN_ARRAY_COUNT"], "4")
        self.assertEqual(env_of(array["containerProperties"])["SHARDRUN_MERGE"], "after-array")
        self.assertEqual(env_of(array["containerProperties"])["SHARDRUN_ATTEMPTS"], str(array["retryStrategy"]["attempts"]))
        self.assertEqual(s.json("merge-submit.json")["jobDefinition"], merge["jobDefinitionName"])
        s = self.submit("--nodes", "3", "--ranks-per-node", "2", "--gpus-per-rank", "1", "--time", "2:00:00")
        mnp = s.json("multinode-job.json")
        self.assertLessEqual(set(mnp), AWS_DEFINITION)
        self.assertEqual(mnp["type"], "multinode")
        nodes = mnp["nodeProperties"]
        self.assertEqual((nodes["numNodes"], nodes["mainNode"], len(nodes["nodeRangeProperties"])), (3, 0, 1))
        self.assertEqual(nodes["nodeRangeProperties"][0]["targetNodes"], "0:")
        container = nodes["nodeRangeProperties"][0]["container"]
        self.check_container(self, container, s, 2, 1)
        self.assertEqual(env_of(container)["SHARDRUN_HOSTS_DIR"], s.path("hosts"))
        self.assertEqual(s.json("multinode-submit.json")["jobDefinition"], mnp["jobDefinitionName"])
        self.assertNotIn("arrayProperties", s.json("multinode-submit.json"))
        with open(os.path.join(SOURCE_DIR, "scripts", "aws-batch", "entrypoint")) as f:
            self.assertEqual(s.text("entrypoint"), f.read())
        self.assertTrue(os.access(s.path("entrypoint"), os.X_OK))

    def test_cpu_only_single_element(self):
        s = self.submit()
        self.assertIn(f"aws batch register-job-definition --cli-input-json file://{s.path('array-job.json')}", s.proc.stdout)
        self.assertIn(f"aws batch submit-job --cli-input-json file://{s.path('array-submit.json')}", s.proc.stdout)
        self.assertFalse(os.path.exists(s.path("merge-job.json")), "one element writes the master itself")
        array = s.json("array-job.json")
        self.check_container(self, array["containerProperties"], s, 1, 0)
        self.assertNotIn("timeout", array)
        self.assertNotIn("arrayProperties", s.json("array-submit.json"), "AWS arrays have 2 to 10000 elements")


class BucketOutputFilesTest(unittest.TestCase):
    """With an s3:// or gs:// output the generated files name no path of this machine (--dry-run: no
    upload, so no server; tests/cloud/cloud_jobs_test.py uploads and runs them)."""

    def test_no_local_path_in_the_generated_files(self):
        for target, url in (("aws-batch", "s3://bucket/runs/squares.h5"), ("gcp-batch", "gs://bucket/runs/squares.h5")):
            work = scratch_dir()
            os.makedirs(os.path.join(work, "jobs"))
            with open(os.path.join(work, "jobs", "pts.json"), "w") as f:
                json.dump([{"x": 2}, {"x": 3}], f)
            job = write_job(os.path.join(work, "jobs"), JOB.replace("OUT", url).replace(
                "x: {range: [0, 12, 1]}", "points_file: pts.json"))
            proc = run(["submit", job, "--to", target, "--array", "2", "--workdir", ".", "--dry-run", "--set",
                        "retries=1"], cwd=work, env={"HOME": work})
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn(f"rclone sync {work}/ :", proc.stdout, "the dry run prints the uploads")
            local = os.path.join(work, "squares.h5.submit", target)
            for name in os.listdir(local):
                with open(os.path.join(local, name)) as f:
                    self.assertNotIn(work, f.read(), f"{target}/{name} names a path of this machine")
            if target == "aws-batch":
                with open(os.path.join(local, "array-job.json")) as f:
                    container = json.load(f)["containerProperties"]
                command, variables = container["command"], env_of(container)
            else:
                with open(os.path.join(local, "job.json")) as f:
                    spec = json.load(f)["taskGroups"][0]["taskSpec"]
                runnable = spec["runnables"][0]["container"]
                command, variables = [runnable["entrypoint"], *runnable["commands"]], spec["environment"]["variables"]
            # The entrypoint runs in $SCRATCH/workdir with the job folder copied to $SCRATCH: the paths are relative.
            self.assertEqual(command, ["shardrun-entrypoint", f"{url}.submit/{target}/job.yaml", "--set", "retries=1",
                                       "--job-dir", "jobs", "--set", "sweep.points_file=../../points.json"])
            self.assertEqual((variables["SHARDRUN_OUTPUT"], variables["SHARDRUN_WORKDIR"]), (url, url + ".submit/workdir"))


    def test_the_workdir_upload_leaves_every_submission_folder_home(self):
        # A user submits several outputs from one project folder: the job files of the others
        # (other.h5.submit/) are no code of this job and stay home, as this job's own do.
        work = scratch_dir()
        for name in ("train.py", os.path.join("other.h5.submit", "aws-batch", "array-job.json"),
                     os.path.join("squares.h5.submit", "gcp-batch", "job.json"), os.path.join("data", "a.submit.txt")):
            os.makedirs(os.path.dirname(os.path.join(work, name)) or work, exist_ok=True)
            with open(os.path.join(work, name), "w") as f:
                f.write("{}\n")
        job = write_job(work, JOB.replace("OUT", "s3://bucket/runs/squares.h5"))
        proc = run(["submit", job, "--to", "aws-batch", "--workdir", ".", "--dry-run"], cwd=work, env={"HOME": work})
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(os.path.join(work, "squares.h5.submit", "aws-batch", "workdir-files.txt")) as f:
            listed = sorted(f.read().split())
        self.assertEqual(listed, sorted(["train.py", "job.yaml", os.path.join("data", "a.submit.txt")]))


class GcpBatchFilesTest(unittest.TestCase):
    def test_job_json(self):
        s = Submission(self, "gcp-batch", "--array", "5", "--ranks-per-node", "4", "--gpus-per-rank", "1",
                       "--gpu-type", "nvidia-l4", "--time", "90", "--image", "us-docker.pkg.dev/p/r/shardrun:1")
        job = s.json("job.json")
        self.assertLessEqual(set(job), GCP_JOB)
        group = job["taskGroups"][0]
        self.assertEqual((group["taskCount"], group["parallelism"]), (5, 5))
        spec = group["taskSpec"]
        self.assertLessEqual(set(spec), GCP_TASK_SPEC)
        container = spec["runnables"][0]["container"]
        self.assertEqual(container["imageUri"], "us-docker.pkg.dev/p/r/shardrun:1")
        self.assertEqual([container["entrypoint"], *container["commands"]],
                         ["bash", s.path("entrypoint"), s.path("job.yaml"), "--job-dir", s.work])
        # 4 L4s per VM: g2-standard-48 (submit_sizes_test.py has the table and the options).
        self.assertEqual(spec["computeResource"], {"cpuMilli": 32000, "memoryMib": 4 * 30720})
        self.assertEqual(spec["maxRunDuration"], "5400s")
        self.assertEqual(spec["environment"]["variables"]["SHARDRUN_RANKS_PER_NODE"], "4")
        instance = job["allocationPolicy"]["instances"][0]
        self.assertIs(instance["installGpuDrivers"], True)
        self.assertEqual(instance["policy"], {"machineType": "g2-standard-48"}, "G2 machines come with their L4s")
        self.assertEqual(job["logsPolicy"], {"destination": "CLOUD_LOGGING"})
        self.assertIn(f"gcloud batch jobs submit squares --location REGION --config {s.path('job.json')}", s.proc.stdout)

    def test_no_gpu_fields_without_gpus(self):
        job = Submission(self, "gcp-batch").json("job.json")
        self.assertNotIn("allocationPolicy", job)
        self.assertEqual(job["taskGroups"][0]["taskCount"], 1)
        self.assertNotIn("maxRunDuration", job["taskGroups"][0]["taskSpec"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
