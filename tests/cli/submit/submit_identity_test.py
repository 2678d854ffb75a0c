"""`shardrun submit` to the clouds (issue 34, point 6): who the containers run as and where their image
comes from. --job-role ARN is written as jobRoleArn of every AWS container (array, multi-node, merge);
--service-account EMAIL as allocationPolicy.serviceAccount.email of the Google job; a malformed value,
or one given to a target that has no use for it, is exit 2 with one line and nothing written. An
--image with no registry host (`shardrun:latest`, `user/name`: Docker Hub) or this machine's own
store (`localhost/...`) gets one warning line on stderr, and the files are still written."""
import unittest

from submit_support import Submitted, expect_refused

ROLE = "arn:aws:iam::123456789012:role/shardrun-job"
ECR = "123456789012.dkr.ecr.us-east-1.amazonaws.com/sweep:1"
ARTIFACT = "europe-west4-docker.pkg.dev/my-project/images/sweep:1"
ACCOUNT = "shardrun-runner@my-project.iam.gserviceaccount.com"


def warnings(proc):
    return [line for line in proc.stderr.splitlines() if "warning" in line]


class JobRoleTest(unittest.TestCase):
    def test_every_container_runs_as_the_role(self):
        s = Submitted(self, "aws-batch", "--array", "3", "--job-role", ROLE, "--image", ECR)

        containers = [s.json("array-job.json")["containerProperties"], s.json("merge-job.json")["containerProperties"],
                      s.json("multinode-job.json")["nodeProperties"]["nodeRangeProperties"][0]["container"]]

        for container in containers:
            self.assertEqual(container["jobRoleArn"], ROLE)

    def test_other_partitions_and_paths(self):
        for role in ("arn:aws-cn:iam::123456789012:role/runner", "arn:aws-us-gov:iam::123456789012:role/batch/jobs/r+w=a,b.c@d_e-f"):
            s = Submitted(self, "aws-batch", "--job-role", role, "--image", ECR)

            self.assertEqual(s.json("array-job.json")["containerProperties"]["jobRoleArn"], role)

    def test_without_it_no_role_is_written(self):
        s = Submitted(self, "aws-batch", "--array", "2", "--image", ECR)

        for name in ("array-job.json", "merge-job.json"):
            self.assertNotIn("jobRoleArn", s.json(name)["containerProperties"])

    def test_malformed_roles_are_refused(self):
        for role in ("shardrun-job", "arn:aws:iam::12345:role/x", "arn:aws:iam::123456789012:user/x",
                     "arn:aws:iam::123456789012:role/", "arn:aws:s3:::bucket", "arn:aws:iam::123456789012:role/a b"):
            line = expect_refused(self, "--to", "aws-batch", "--image", ECR, "--job-role", role,
                                  needle=f"--job-role '{role}' is not an IAM role ARN")
            self.assertIn("arn:aws:iam::<12-digit account>:role/<name>", line)

    def test_other_targets_refuse_it(self):
        for target in ("gcp-batch", "slurm"):
            expect_refused(self, "--to", target, "--job-role", ROLE, needle="--job-role is an AWS Batch option")


class ServiceAccountTest(unittest.TestCase):
    def test_the_vms_run_as_the_account(self):
        for extra in ([], ["--gpus-per-rank", "1", "--gpu-type", "nvidia-l4"]):
            s = Submitted(self, "gcp-batch", "--array", "2", "--service-account", ACCOUNT, "--image", ARTIFACT, *extra)

            policy = s.json("job.json")["allocationPolicy"]

            self.assertEqual(policy["serviceAccount"], {"email": ACCOUNT})
            self.assertEqual("instances" in policy, bool(extra), policy)  # the GPU policy is kept beside it

    def test_managed_accounts(self):
        account = "123456789012-compute@developer.gserviceaccount.com"
        s = Submitted(self, "gcp-batch", "--service-account", account, "--image", ARTIFACT)

        self.assertEqual(s.json("job.json")["allocationPolicy"]["serviceAccount"]["email"], account)

    def test_without_it_no_account_is_written(self):
        s = Submitted(self, "gcp-batch", "--image", ARTIFACT)

        self.assertNotIn("allocationPolicy", s.json("job.json"))

    def test_malformed_accounts_are_refused(self):
        for account in ("shardrun", "runner@gmail.com", "Runner@p.iam.gserviceaccount.com", "@p.iam.gserviceaccount.com"):
            line = expect_refused(self, "--to", "gcp-batch", "--image", ARTIFACT, "--service-account", account,
                                  needle=f"--service-account '{account}' is not a service account e-mail")
            self.assertIn("NAME@PROJECT.iam.gserviceaccount.com", line)

    def test_other_targets_refuse_it(self):
        for target in ("aws-batch", "slurm"):
            expect_refused(self, "--to", target, "--service-account", ACCOUNT,
                           needle="--service-account is a Google Cloud Batch option")


class RegistryWarningTest(unittest.TestCase):
    def test_docker_hub_names_are_warned_about(self):
        for target, where in (("aws-batch", "<account>.dkr.ecr.<region>.amazonaws.com/"),
                              ("gcp-batch", "<region>-docker.pkg.dev/<project>/<repository>/")):
            for image, pulled in ((None, "docker.io/library/shardrun:latest"), ("me/sweep:2", "docker.io/me/sweep:2")):
                s = Submitted(self, target, *(["--image", image] if image else []))

                lines = warnings(s.proc)

                self.assertEqual(len(lines), 1, s.proc.stderr)
                self.assertIn("names no registry", lines[0])
                self.assertIn(f"would pull {pulled} from Docker Hub", lines[0])
                self.assertIn(f"pass --image {where}", lines[0])
                self.assertIn("scripts/build-image prints the commands", lines[0])

    def test_this_machines_store_is_warned_about(self):
        s = Submitted(self, "aws-batch", "--image", "localhost/shardrun:src-0123")

        lines = warnings(s.proc)

        self.assertEqual(len(lines), 1, s.proc.stderr)
        self.assertIn("localhost/shardrun:src-0123 is this machine's image store, which AWS Batch cannot reach", lines[0])

    def test_registry_images_are_not(self):
        for target, image in (("aws-batch", ECR), ("gcp-batch", ARTIFACT), ("aws-batch", "registry.example.org:5000/x"),
                              ("gcp-batch", "ghcr.io/me/sweep:1")):
            s = Submitted(self, target, "--image", image)

            self.assertEqual(warnings(s.proc), [], s.proc.stderr)

    def test_slurm_runs_no_image(self):
        s = Submitted(self, "slurm", "--dry-run")

        self.assertEqual(warnings(s.proc), [], s.proc.stderr)


if __name__ == "__main__":
    unittest.main()
