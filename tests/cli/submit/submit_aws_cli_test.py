"""The AWS Batch files of `shardrun submit --to aws-batch`, taken by the official client: Debian's
awscli (/usr/bin/aws; the `aws` first on PATH may be another) checks each file against the
service's schema (--cli-input-json refuses an unknown or mistyped field), and moto's Batch server
(/opt/shardrun-cloudenv, from scripts/install-deps) registers the definitions and queues the jobs.
Every `aws batch` command that submit prints is run as printed, plus --endpoint-url, and every
<kind>-job.json / <kind>-submit.json pair is registered, submitted and read back.

moto would run the queued jobs with docker; there is none here, so they end FAILED afterwards:
only registration and submission are checked, which is what the files decide."""
import json
import os
import shlex
import signal
import socket
import subprocess
import time
import unittest
import urllib.request

from harness import scratch_dir
from submit_support import Submitted

AWS = "/usr/bin/aws"
CLOUDENV = os.environ.get("SHARDRUN_CLOUDENV", "/opt/shardrun-cloudenv")
MOTO_SERVER = os.path.join(CLOUDENV, "bin", "moto_server")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MotoBatch:
    """moto's server on a free loopback port, in its own process group, and awscli pointed at it."""

    def __init__(self):
        for tool in (AWS, MOTO_SERVER):
            if not os.access(tool, os.X_OK):
                raise RuntimeError(f"{tool} is missing: run scripts/install-deps")
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(scratch_dir(), "moto.log"), "w")
        self.proc = subprocess.Popen([MOTO_SERVER, "-H", "127.0.0.1", "-p", str(self.port)], stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        home = scratch_dir()
        # Dummy credentials, and no config or credentials file of this machine's user.
        self.env = {"PATH": os.environ["PATH"], "HOME": home, "AWS_ACCESS_KEY_ID": "testing",
                    "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
                    "AWS_CONFIG_FILE": os.path.join(home, "config"),
                    "AWS_SHARED_CREDENTIALS_FILE": os.path.join(home, "credentials"),
                    "AWS_PAGER": "", "AWS_EC2_METADATA_DISABLED": "true"}
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(self.endpoint + "/moto-api/", timeout=2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"moto_server did not start on port {self.port}")
                time.sleep(0.2)

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()

    def aws(self, *args):
        """Runs awscli against moto; returns its JSON answer (fails the caller on a refusal)."""
        proc = subprocess.run([AWS, "--endpoint-url", self.endpoint, "--output", "json", *args], capture_output=True,
                              text=True, env=self.env, timeout=120)
        if proc.returncode != 0:
            raise AssertionError(f"aws {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
        return json.loads(proc.stdout) if proc.stdout.strip() else {}

    def create_queues(self):
        """An unmanaged compute environment (moto makes no EC2 instances for it) and both queues submit names."""
        role = self.aws("iam", "create-role", "--role-name", "batch", "--assume-role-policy-document", "{}")["Role"]["Arn"]
        self.aws("batch", "create-compute-environment", "--compute-environment-name", "shardrun-ce", "--type", "UNMANAGED",
                 "--state", "ENABLED", "--service-role", role)
        for queue in ("shardrun", "shardrun-spot"):
            self.aws("batch", "create-job-queue", "--job-queue-name", queue, "--state", "ENABLED", "--priority", "1",
                     "--compute-environment-order", "order=1,computeEnvironment=shardrun-ce")


class AwsCliAcceptsTheFilesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.moto = MotoBatch()
        try:
            cls.moto.create_queues()
        except BaseException:
            cls.moto.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.moto.stop()

    def run_printed(self, s):
        """Runs every `aws batch ...` line submit printed, as printed (plus --endpoint-url)."""
        commands = [shlex.split(line.strip()) for line in s.proc.stdout.splitlines() if line.strip().startswith("aws batch ")]
        self.assertTrue(commands, s.proc.stdout)
        for command in commands:
            self.moto.aws(*command[1:])

    def pairs(self, s):
        """Each definition file with its submit file: <kind>-job.json and <kind>-submit.json."""
        kinds = sorted(name[:-len("-job.json")] for name in os.listdir(s.dir) if name.endswith("-job.json"))
        self.assertIn("array", kinds)
        return [(f"{kind}-job.json", f"{kind}-submit.json") for kind in kinds]

    def check_definition(self, answer, body):
        """The definition moto stored is the file's: name, type, retries, timeout, and the container's sizes."""
        self.assertEqual(answer["jobDefinitionName"], body["jobDefinitionName"])
        stored = self.moto.aws("batch", "describe-job-definitions", "--job-definitions", answer["jobDefinitionArn"])
        stored = stored["jobDefinitions"][0]
        self.assertEqual(stored["type"], body["type"])
        # moto stores the actions lowercased (AWS reads them in any case).
        for entry in stored["retryStrategy"]["evaluateOnExit"]:
            entry["action"] = entry["action"].upper()
        self.assertEqual(stored["retryStrategy"], body["retryStrategy"])
        self.assertEqual(stored.get("timeout"), body.get("timeout"))
        if body["type"] == "container":
            self.check_container(stored["containerProperties"], body["containerProperties"])

    def check_container(self, container, expected):
        # .get: the merge job (cloud-jobs) writes no linuxParameters; a field on one side only still differs.
        for field in ("image", "command", "resourceRequirements", "linuxParameters", "environment", "jobRoleArn"):
            self.assertEqual(container.get(field), expected.get(field), field)

    def check_job(self, answer, body, definition):
        self.assertTrue(answer["jobId"], answer)
        job = self.moto.aws("batch", "describe-jobs", "--jobs", answer["jobId"])["jobs"][0]
        self.assertEqual(job["jobName"], body["jobName"])
        self.assertTrue(job["jobQueue"].endswith("job-queue/" + body["jobQueue"]), job["jobQueue"])
        if "arrayProperties" in body:
            self.assertEqual(job["arrayProperties"]["size"], body["arrayProperties"]["size"])
        if definition["type"] == "multinode":
            # moto's describe-job-definitions leaves nodeProperties out; its describe-jobs has them.
            nodes, expected = job["nodeProperties"], definition["nodeProperties"]
            self.assertEqual((nodes["numNodes"], nodes["mainNode"]), (expected["numNodes"], expected["mainNode"]))
            self.check_container(nodes["nodeRangeProperties"][0]["container"],
                                 expected["nodeRangeProperties"][0]["container"])

    def check_submission(self, *options):
        s = Submitted(self, "aws-batch", *options)
        self.run_printed(s)
        # Every file pair again, so that each is checked whichever of them submit prints.
        for definition, submit in self.pairs(s):
            registered = self.moto.aws("batch", "register-job-definition", "--cli-input-json", "file://" + s.path(definition))
            self.check_definition(registered, s.json(definition))
            queued = self.moto.aws("batch", "submit-job", "--cli-input-json", "file://" + s.path(submit))
            self.check_job(queued, s.json(submit), s.json(definition))
        return s

    def test_gpu_array_with_sizes_and_time(self):
        self.check_submission("--array", "4", "--ranks-per-node", "2", "--gpus-per-rank", "1", "--time", "2:00:00",
                              "--image", "123456789012.dkr.ecr.us-east-1.amazonaws.com/shardrun:1", "--set", "retries=1")

    def test_cpu_single_element_with_options(self):
        self.check_submission("--vcpus", "4", "--memory", "6G", "--shm-size", "2G")

    def test_multinode_on_spot(self):
        s = self.check_submission("--nodes", "2", "--ranks-per-node", "4", "--gpus-per-rank", "1", "--spot")
        self.assertEqual(s.json("multinode-submit.json")["jobQueue"], "shardrun-spot")

    def test_array_with_a_job_role(self):
        role = "arn:aws:iam::123456789012:role/shardrun-job"
        s = self.check_submission("--array", "3", "--job-role", role,
                                  "--image", "123456789012.dkr.ecr.us-east-1.amazonaws.com/shardrun:1")
        self.assertEqual(s.json("array-job.json")["containerProperties"]["jobRoleArn"], role)

    def test_a_mistyped_field_is_refused_by_the_client(self):
        # The check above means something: awscli refuses a field its schema does not have.
        s = Submitted(self, "aws-batch")
        body = s.json("array-job.json")
        body["retryStrategy"]["evaluateOnExit"][0]["onStatus"] = "Host EC2*"
        path = s.path("mistyped.json")
        with open(path, "w") as f:
            json.dump(body, f)
        with self.assertRaisesRegex(AssertionError, "Unknown parameter"):
            self.moto.aws("batch", "register-job-definition", "--cli-input-json", "file://" + path)


if __name__ == "__main__":
    unittest.main(verbosity=2)
