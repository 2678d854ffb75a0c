"""Issue 22, points 2, 3, 4 and 7: the job files `shardrun submit` writes, run as the services would run
them, with nothing shared but the bucket. A project (a git work tree with a tool, an ignored file, a
job whose points file git ignores) is submitted with --workdir . and an s3:// (gs://) output; the
generated files hold no path of the submitting machine. Each array element then runs the command
and environment of the generated JSON with the variables the service sets, on a fresh machine
(tests/cloud/element_runner.py): by default on this host in its own HOME/TMPDIR with the generated
entrypoint as the image's shardrun-entrypoint; with CLOUD_RUNNER=image as a container of the image
scripts/build-image makes from these sources, nothing mounted, the bucket on 127.0.0.1 (only the
tests that run elements). One element is SIGTERMed mid-run (a spot stop): it exits 3 with its commit in
the bucket, and its retry resumes from the bucket. The merge then runs on the cloud (AWS: the merge
job of merge-job.json; Google: the last task to finish) and the master read back from the bucket
with h5py has every task ok exactly once.
CLOUD_BACKEND=s3 runs AWS Batch against moto's S3, gcs runs Google Cloud Batch against the GCS
emulator; unset runs both."""
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from element_runner import HostRunner, ImageRunner, image_or_skip  # noqa: E402
from harness import clean_env, run, scratch_dir  # noqa: E402
from jobs import h5py_module  # noqa: E402

TASKS = 9
IMAGE = None  # the image's name with CLOUD_RUNNER=image (set in main)
# tools/square.sh X: y = X * X; the task whose X is $SLOW sleeps first. (A rank commits its finished
# tasks between tasks, so the element's other tasks reach the bucket while that one runs.)
SQUARE = """#!/bin/sh
if [ "$1" = "${SLOW:-}" ]; then sleep 1000; fi
printf '{"y": %d}' $(($1 * $1)) > "$SHARDRUN_RESULT"
"""
JOB = """\
name: squares
task: exec
sweep:
  points_file: points.json
retries: 0
output: {path: URL}
exec:
  argv: [../tools/square.sh, "{x}"]
  results: {y: float64}
"""
SEGMENT = re.compile(r"\.shards/a1/r\d+/\d+\.h5$")


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


class CloudJobsBase:
    target = None
    backend = None
    count = None
    square = SQUARE  # tools/square.sh of the submitted project

    def setUp(self):
        self._runner = None
        self.work = scratch_dir(self)
        self.store = (cloud_servers.S3 if self.backend == "s3" else cloud_servers.GCS)(self.work)
        self.addCleanup(self.store.stop)
        self.prefix = "runs/squares.h5"
        self.url = self.store.url(self.prefix)
        # The submitting machine: a project in a git work tree under its own HOME.
        self.home = os.path.join(self.work, "submitter")
        self.project = os.path.join(self.home, "proj")
        write(os.path.join(self.project, "tools", "square.sh"), self.square, 0o755)
        write(os.path.join(self.project, "jobs", "job.yaml"), JOB.replace("URL", self.url))
        write(os.path.join(self.project, "jobs", "points.json"), json.dumps([{"x": x} for x in range(TASKS)]))
        write(os.path.join(self.project, "big.bin"), "ignored by git\n")
        write(os.path.join(self.project, ".gitignore"), "big.bin\njobs/points.json\n")
        for args in (["init", "-q"], ["add", "tools", "jobs/job.yaml", ".gitignore"]):
            subprocess.run(["git", *args], cwd=self.project, check=True, capture_output=True)
        proc = run(["submit", "jobs/job.yaml", "--to", self.target, "--array", str(self.count), "--ranks-per-node", "2",
                    "--workdir", "."], cwd=self.project, env={**self.store.env(), "HOME": self.home})
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.local = os.path.join(self.project, "squares.h5.submit", self.target)

    def generated(self):
        files = {}
        for name in os.listdir(self.local):
            with open(os.path.join(self.local, name)) as f:
                files[name] = f.read()
        return files

    def check_no_local_path(self):
        for name, text in self.generated().items():
            for path in (self.work, self.home, self.project, os.path.join(self.project, "jobs")):
                self.assertNotIn(path, text, f"{name} names a path of the submitting machine")

    def check_workdir_in_bucket(self):
        keys = self.store.keys(self.prefix + ".submit/workdir/")
        names = sorted(key.split("/workdir/", 1)[1] for key in keys)
        self.assertEqual(names, [".gitignore", "jobs/job.yaml", "tools/square.sh"], "the workdir minus .git and ignored files")

    def runner(self):
        if self._runner is None:
            with open(os.path.join(self.local, "entrypoint")) as f:
                entrypoint = f.read()
            self._runner = ImageRunner(self, IMAGE) if IMAGE else HostRunner(self, entrypoint)
        return self._runner

    def start(self, name, command, variables):
        """One element (or the merge job) with the variables of the job files and the service, on a fresh machine."""
        # The bucket's endpoint and credentials (an instance role on the cloud), and shorter waits than the
        # defaults: commits uploaded every 0.3 s, 2 s of drain after SIGTERM, 1 s for markers to settle.
        variables = {**variables, **self.store.env(), "SHARDRUN_UPLOAD_INTERVAL": "0.3",
                     "SHARDRUN_DRAIN_SECONDS": "2", "SHARDRUN_MERGE_SETTLE": "1"}
        handle = self.runner().start(name, command, variables)
        self.addCleanup(self.runner().stop, handle)
        return handle

    def finish(self, handle, expected):
        code, out, err = self.runner().finish(handle, 300)
        self.assertEqual(code, expected, out + err)
        return out, err

    def run_and_stop_one(self, name, command, variables, slow):
        """Starts element 1 with one slow task (x = slow); SIGTERMs it once a commit of it is in the bucket."""
        proc = self.start(name, command, {**variables, "SLOW": str(slow)})
        deadline = time.time() + 120
        while not [key for key in self.store.keys(self.prefix + ".shards/a1/") if SEGMENT.search(key)]:
            self.assertIsNone(proc[0].poll(), "the element ended before its first commit reached the bucket")
            self.assertLess(time.time(), deadline, f"no commit of element 1 in the bucket after 120 s: "
                                                   f"{self.store.keys(self.prefix + '.shards/')}")
            time.sleep(0.2)
        self.runner().terminate(proc)  # what `docker stop` (job termination, a spot reclaim) sends PID 1
        out, err = self.finish(proc, 3)
        self.assertIn("SIGTERM: draining", err)
        return out, err

    def check_master(self):
        h5py = h5py_module()
        path = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, path)
        with h5py.File(path, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS, "every task ok exactly once")
            self.assertEqual(f["results/y"][:].tolist(), [float(x * x) for x in range(TASKS)])


class AwsBatchJobsTest(CloudJobsBase, unittest.TestCase):
    target, backend, count = "aws-batch", "s3", 3

    def element(self, container, index, attempt):
        aws = {"AWS_BATCH_JOB_ID": f"7e57-{attempt}:{index}", "AWS_BATCH_JOB_ARRAY_INDEX": str(index),
               "AWS_BATCH_JOB_ARRAY_SIZE": str(self.count), "AWS_BATCH_JOB_ATTEMPT": str(attempt),
               "AWS_BATCH_CE_NAME": "shardrun-ce", "AWS_BATCH_JQ_NAME": "shardrun"}
        return f"a{index}-{attempt}", {e["name"]: e["value"] for e in container["environment"]} | aws

    def test_array_spot_stop_retry_and_merge_job(self):
        self.check_no_local_path()
        self.check_workdir_in_bucket()
        definition = json.loads(self.generated()["array-job.json"])["containerProperties"]
        command = definition["command"]
        self.assertEqual(command[:2], ["shardrun-entrypoint", self.url + ".submit/aws-batch/job.yaml"])
        for index in (0, 2):
            name, variables = self.element(definition, index, 1)
            self.finish(self.start(name, command, variables), 0)
        name, variables = self.element(definition, 1, 1)
        self.run_and_stop_one(name, command, variables, 4)
        name, variables = self.element(definition, 1, 2)  # AWS retries exit 3 on a fresh machine: it resumes from the bucket
        out, _ = self.finish(self.start(name, command, variables), 0)
        self.assertIn("array element 1 of 3 finished", out)
        self.assertNotIn(self.prefix, self.store.keys(self.prefix), "no element writes the master")
        merge = json.loads(self.generated()["merge-job.json"])["containerProperties"]
        out, _ = self.finish(self.start("merge", merge["command"], {e["name"]: e["value"] for e in merge["environment"]}), 0)
        self.assertIn("merged 3 of 3 array element(s)", out)
        self.check_master()

    def test_multinode_job_of_one_node_meets_in_the_bucket(self):
        """multinode-job.json: the nodes' rendezvous folder is in the bucket; the whole job writes the master."""
        definition = json.loads(self.generated()["multinode-job.json"])["nodeProperties"]["nodeRangeProperties"][0]
        container = definition["container"]
        variables = {e["name"]: e["value"] for e in container["environment"]}
        self.assertEqual(variables["SHARDRUN_HOSTS_DIR"], self.url + ".submit/aws-batch/hosts")
        handle = self.start("node0", container["command"], {
            **variables, "AWS_BATCH_JOB_ID": "c0de#0", "AWS_BATCH_JOB_NODE_INDEX": "0", "AWS_BATCH_JOB_MAIN_NODE_INDEX": "0",
            "AWS_BATCH_JOB_NUM_NODES": "1", "SHARDRUN_NODE_ADDRESS": "127.0.0.1"})
        self.finish(handle, 0)
        self.check_master()
        done = os.path.join(self.work, "done")
        self.store.get(self.prefix + ".submit/aws-batch/hosts/c0de-1/done", done)
        with open(done) as f:
            self.assertEqual(f.read(), "exit 0\n")

    def test_submit_script_queues_the_merge_after_the_array(self):
        """submit.sh against moto's Batch API (awscli from Debian): the merge job dependsOn the array job."""
        aws = self.store.aws
        role = json.loads(aws("iam", "create-role", "--role-name", "batch", "--assume-role-policy-document", "{}"))
        ce = json.loads(aws("batch", "create-compute-environment", "--compute-environment-name", "shardrun-ce",
                            "--type", "UNMANAGED", "--state", "ENABLED", "--service-role", role["Role"]["Arn"]))
        aws("batch", "create-job-queue", "--job-queue-name", "squares-queue", "--priority", "1", "--state", "ENABLED",
            "--compute-environment-order", f"order=1,computeEnvironment={ce['computeEnvironmentArn']}")
        env = clean_env({**self.store.env(), "SHARDRUN_AWS": f"{cloud_servers.AWS} --endpoint-url {self.store.server.url}"})
        env.pop("AWS_CA_BUNDLE", None)
        proc = subprocess.run(["bash", os.path.join(self.local, "submit.sh"), "squares-queue"], capture_output=True,
                              text=True, env=env, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        found = re.search(r"array job (\S+), merge job (\S+) ", proc.stdout)
        self.assertIsNotNone(found, proc.stdout)
        jobs = {job["jobId"]: job for job in json.loads(aws("batch", "describe-jobs", "--jobs", *found.groups()))["jobs"]}
        array, merge = jobs[found.group(1)], jobs[found.group(2)]
        self.assertEqual(array["arrayProperties"]["size"], 3)
        self.assertEqual(merge["dependsOn"], [{"jobId": found.group(1)}], "a plain dependency: after every element")
        self.assertEqual(merge["container"]["command"], ["shardrun-entrypoint", "--merge"])

    def test_workdir_outside_git_leaves_out_only_dot_git(self):
        plain = os.path.join(self.work, "plain")
        write(os.path.join(plain, "job.yaml"), JOB.replace("URL", self.store.url("plain/run.h5")))
        write(os.path.join(plain, "points.json"), json.dumps([{"x": 1}]))
        write(os.path.join(plain, "big.bin"), "kept: no git, so no .gitignore applies\n")
        write(os.path.join(plain, ".git", "config"), "not uploaded\n")
        proc = run(["submit", "job.yaml", "--to", "aws-batch", "--array", "2", "--workdir", "."], cwd=plain,
                   env=self.store.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("not a git work tree", proc.stdout)
        names = sorted(key.split("/workdir/", 1)[1] for key in self.store.keys("plain/run.h5.submit/workdir/"))
        self.assertEqual(names, ["big.bin", "job.yaml", "points.json"])


class GcpBatchJobsTest(CloudJobsBase, unittest.TestCase):
    target, backend, count = "gcp-batch", "gcs", 2

    def task(self, spec, index, retry):
        batch = {"BATCH_TASK_INDEX": str(index), "BATCH_TASK_COUNT": str(self.count),
                 "BATCH_TASK_RETRY_ATTEMPT": str(retry), "BATCH_JOB_ID": "squares"}
        return f"t{index}-{retry}", {**spec["environment"]["variables"], **batch}

    def test_tasks_spot_stop_retry_and_the_last_merges(self):
        self.check_no_local_path()
        self.check_workdir_in_bucket()
        spec = json.loads(self.generated()["job.json"])["taskGroups"][0]["taskSpec"]
        container = spec["runnables"][0]["container"]
        command = [container["entrypoint"], *container["commands"]]
        self.assertEqual(command[:2], ["shardrun-entrypoint", self.url + ".submit/gcp-batch/job.yaml"])
        name, variables = self.task(spec, 1, 0)
        self.run_and_stop_one(name, command, variables, 6)
        name, variables = self.task(spec, 0, 0)
        _, err = self.finish(self.start(name, command, variables), 0)
        self.assertIn("1 of 2 are; the last to finish merges", err)
        name, variables = self.task(spec, 1, 1)  # RETRY_TASK on exit 3: a fresh VM, resumed from the bucket; it is last
        _, err = self.finish(self.start(name, command, variables), 0)
        self.assertIn("merging the 2 array elements", err)
        self.check_master()
        self.assertEqual(self.store.keys(self.prefix + ".submit/gcp-batch/final/"), [], "the markers go once merged")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcpBatchJobsTest
    elif backend == "gcs":
        del AwsBatchJobsTest
    argv = sys.argv
    if os.environ.get("CLOUD_RUNNER") == "image":
        IMAGE = image_or_skip()
        argv = [sys.argv[0], "-k", "spot_stop", "-k", "multinode"]  # the tests that run elements
    unittest.main(argv=argv, verbosity=2)
