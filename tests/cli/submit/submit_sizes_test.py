"""`shardrun submit --to aws-batch | gcp-batch`: sizes (--vcpus, --memory, --shm-size) and their
defaults for the GPUs asked, the Google Cloud machine type table, --spot, the retries that only
follow a lost host or exit 3, and each combination the service cannot run (exit 2, one line,
nothing written)."""
import unittest

from submit_support import Submitted, aws_resources, expect_refused

GIB = 1024


def aws_container(s, name="array-job.json"):
    return s.json(name)["containerProperties"]


def gcp_spec(s):
    return s.json("job.json")["taskGroups"][0]["taskSpec"]


class AwsSizesTest(unittest.TestCase):
    def test_defaults_follow_the_gpus(self):
        # 8 vCPU and 30 GiB per GPU: the one-GPU shape (g5/g6/g4dn.2xlarge: 8 vCPU, 32 GiB) less the agent's share.
        for ranks, gpus_per_rank in [(1, 1), (2, 1), (4, 2)]:
            s = Submitted(self, "aws-batch", "--ranks-per-node", str(ranks), "--gpus-per-rank", str(gpus_per_rank))
            gpus = ranks * gpus_per_rank
            container = aws_container(s)
            self.assertEqual(aws_resources(container),
                             {"VCPU": str(8 * gpus), "MEMORY": str(30 * GIB * gpus), "GPU": str(gpus)})
            self.assertEqual(container["linuxParameters"], {"sharedMemorySize": 8 * GIB * gpus})
            self.assertIn(f"each container: {8 * gpus} vCPU, {30 * GIB * gpus} MiB", s.proc.stdout)

    def test_cpu_defaults_are_per_rank(self):
        container = aws_container(Submitted(self, "aws-batch", "--ranks-per-node", "3"))
        self.assertEqual(aws_resources(container), {"VCPU": "3", "MEMORY": str(3 * 2048)})
        self.assertEqual(container["linuxParameters"], {"sharedMemorySize": 1024})

    def test_options_set_array_and_multinode_containers(self):
        # Binary units, as Docker and Slurm read them; a bare number is MiB (AWS's unit).
        for memory, shm, mib, shm_mib in [("64G", "16g", 64 * GIB, 16 * GIB), ("40000", "2048M", 40000, 2048),
                                          ("1T", "100GiB", 1024 * GIB, 100 * GIB)]:
            s = Submitted(self, "aws-batch", "--gpus-per-rank", "1", "--vcpus", "12", "--memory", memory,
                          "--shm-size", shm)
            for name in ("array-job.json", "multinode-job.json"):
                definition = s.json(name)
                container = definition.get("containerProperties") or \
                    definition["nodeProperties"]["nodeRangeProperties"][0]["container"]
                self.assertEqual(aws_resources(container), {"VCPU": "12", "MEMORY": str(mib), "GPU": "1"})
                self.assertEqual(container["linuxParameters"], {"sharedMemorySize": shm_mib})

    def test_retry_only_a_lost_host_or_a_drain(self):
        # AWS takes the first entry that matches, and RETRYs when none does: hence the closing EXIT.
        # Exit 1 (some tasks failed: shardrun's own `retries` ran) and 2 (bad input) end there.
        s = Submitted(self, "aws-batch", "--nodes", "2")
        for name in ("array-job.json", "multinode-job.json"):
            self.assertEqual(s.json(name)["retryStrategy"], {
                "attempts": 5,
                "evaluateOnExit": [{"onStatusReason": "Host EC2*", "action": "RETRY"},
                                   {"onExitCode": "3", "action": "RETRY"},
                                   {"onReason": "*", "action": "EXIT"}]})

    def test_spot_names_the_spot_queue(self):
        s = Submitted(self, "aws-batch", "--spot")
        for name in ("array-submit.json", "multinode-submit.json"):
            self.assertEqual(s.json(name)["jobQueue"], "shardrun-spot")
        self.assertIn("--job-queue shardrun-spot", s.proc.stdout)
        self.assertIn("compute environment of type SPOT", s.proc.stdout)
        self.assertEqual(Submitted(self, "aws-batch").json("array-submit.json")["jobQueue"], "shardrun")

    def test_refusals(self):
        line = expect_refused(self, "--to", "aws-batch", "--array", "3", "--nodes", "2",
                              needle="--array 3 --nodes 2: AWS Batch has no multi-node array jobs")
        self.assertIn("use --array 3 alone", line)
        self.assertIn("--nodes 2 alone (one multi-node job)", line)
        expect_refused(self, "--to", "aws-batch", "--machine-type", "g5.2xlarge", needle="--machine-type is a Google Cloud option")
        for option, value in [("--account", "a"), ("--qos", "q"), ("--mem", "4G"), ("--cpus-per-task", "2"),
                              ("--sbatch", "--exclusive"), ("--merge-partition", "p"), ("--merge-time", "10"),
                              ("--partition", "gpu")]:
            expect_refused(self, "--to", "aws-batch", f"{option}={value}",
                           needle=f"{option} is a Slurm option; it has no meaning for --to aws-batch")
        for size in ("lots", "0", "-4G", "4.5G", "4P", "G"):
            expect_refused(self, "--to", "aws-batch", f"--memory={size}", needle=f"--memory '{size}' is not a size")
        expect_refused(self, "--to", "aws-batch", "--shm-size", "x", needle="--shm-size 'x' is not a size")
        expect_refused(self, "--to", "aws-batch", "--vcpus", "-2", needle="--vcpus -2 must be at least 1")
        expect_refused(self, "--to", "aws-batch", "--memory", "4G", "--shm-size", "5G",
                       needle="--shm-size 5G is more than the container's memory (4096 MiB)")


class GcpSizesTest(unittest.TestCase):
    def policy(self, s):
        return s.json("job.json")["allocationPolicy"]["instances"][0]

    def test_machine_type_table(self):
        # G2/A2/A3 machine types come with their GPUs (no accelerators field); N1 gets them attached.
        for gpu_type, ranks, machine, vcpus, memory_mib in [
                ("nvidia-l4", 1, "g2-standard-8", 8, 30 * GIB),
                ("nvidia-l4", 2, "g2-standard-24", 16, 60 * GIB),
                ("nvidia-l4", 8, "g2-standard-96", 64, 240 * GIB),
                ("nvidia-tesla-a100", 1, "a2-highgpu-1g", 8, 30 * GIB),
                ("nvidia-tesla-a100", 16, "a2-megagpu-16g", 96, 480 * GIB),  # capped at the machine's 96 vCPU
                ("nvidia-a100-80gb", 4, "a2-ultragpu-4g", 32, 120 * GIB),
                ("nvidia-h100-80gb", 8, "a3-highgpu-8g", 64, 240 * GIB)]:
            s = Submitted(self, "gcp-batch", "--gpu-type", gpu_type, "--ranks-per-node", str(ranks), "--gpus-per-rank", "1")
            self.assertEqual(self.policy(s), {"installGpuDrivers": True, "policy": {"machineType": machine}})
            self.assertEqual(gcp_spec(s)["computeResource"], {"cpuMilli": vcpus * 1000, "memoryMib": memory_mib})
            self.assertEqual(gcp_spec(s)["runnables"][0]["container"]["options"], f"--shm-size={8 * GIB * ranks}m")
            self.assertEqual(s.json("job.json")["taskGroups"][0]["taskCountPerNode"], 1, "one element per VM")
        s = Submitted(self, "gcp-batch", "--gpus-per-rank", "2", "--ranks-per-node", "2")  # default nvidia-tesla-t4
        self.assertEqual(self.policy(s)["policy"], {"machineType": "n1-highmem-32",
                                                    "accelerators": [{"type": "nvidia-tesla-t4", "count": 4}]})

    def test_options_and_spot(self):
        s = Submitted(self, "gcp-batch", "--gpu-type", "nvidia-l4", "--gpus-per-rank", "1", "--spot",
                      "--vcpus", "6", "--memory", "20G", "--shm-size", "4G")
        self.assertEqual(self.policy(s)["policy"], {"machineType": "g2-standard-8", "provisioningModel": "SPOT"})
        self.assertEqual(gcp_spec(s)["computeResource"], {"cpuMilli": 6000, "memoryMib": 20 * GIB})
        self.assertEqual(gcp_spec(s)["runnables"][0]["container"]["options"], "--shm-size=4096m")
        self.assertIn("one Spot VM g2-standard-8, 6 vCPU", s.proc.stdout)
        # A machine type not in the table is taken as given, the GPUs attached to it.
        s = Submitted(self, "gcp-batch", "--gpus-per-rank", "1", "--machine-type", "n1-standard-16", "--memory", "50G")
        self.assertEqual(self.policy(s)["policy"], {"machineType": "n1-standard-16",
                                                    "accelerators": [{"type": "nvidia-tesla-t4", "count": 1}]})
        # A GPU type newer than the table passes only with a machine type the table does not know either.
        s = Submitted(self, "gcp-batch", "--gpus-per-rank", "1", "--machine-type", "n1-standard-16",
                      "--gpu-type", "nvidia-tesla-k80")
        self.assertEqual(self.policy(s)["policy"], {"machineType": "n1-standard-16",
                                                    "accelerators": [{"type": "nvidia-tesla-k80", "count": 1}]})
        # Without GPUs: 1 vCPU and 2 GiB per rank; Spot alone still makes an allocationPolicy.
        s = Submitted(self, "gcp-batch", "--ranks-per-node", "4", "--spot")
        self.assertEqual(s.json("job.json")["allocationPolicy"], {"instances": [{"policy": {"provisioningModel": "SPOT"}}]})
        self.assertEqual(gcp_spec(s)["computeResource"], {"cpuMilli": 4000, "memoryMib": 8 * GIB})
        self.assertNotIn("taskCountPerNode", s.json("job.json")["taskGroups"][0])

    def test_retry_only_a_lost_vm_or_a_drain(self):
        # Batch takes one lifecycle policy; RETRY_TASK retries the codes it lists and fails every other
        # (1: some tasks failed, 2: bad input). 5000x: Batch's own codes for a VM that went away.
        spec = gcp_spec(Submitted(self, "gcp-batch"))
        self.assertEqual(spec["lifecyclePolicies"], [
            {"action": "RETRY_TASK", "actionCondition": {"exitCodes": [3, 50001, 50002, 50003, 50006]}}])
        self.assertEqual(spec["maxRetryCount"], 4)

    def test_refusals(self):
        expect_refused(self, "--to", "gcp-batch", "--array", "3", "--nodes", "2",
                       needle="--nodes 2: --to gcp-batch runs each array element on one VM")
        expect_refused(self, "--to", "gcp-batch", "--gpu-type", "nvidia-l4", "--ranks-per-node", "3", "--gpus-per-rank", "1",
                       needle="3 GPUs of nvidia-l4 per VM is no machine type (there are 1, 2, 4, 8)")
        expect_refused(self, "--to", "gcp-batch", "--gpu-type", "nvidia-h100-mega-80gb", "--gpus-per-rank", "1",
                       needle="1 GPUs of nvidia-h100-mega-80gb per VM is no machine type (there are 8)")
        # A GPU type not in the table (a typo) is refused before anything is written or uploaded.
        line = expect_refused(self, "--to", "gcp-batch", "--gpus-per-rank", "1", "--gpu-type", "nvidia-l5",
                              needle="--gpu-type nvidia-l5 is no GPU type of the machine table (did you mean nvidia-l4?)")
        self.assertIn("nvidia-l4, nvidia-tesla-a100, nvidia-a100-80gb", line)
        self.assertIn("docs/launchers/sizes-spot.md", line)
        expect_refused(self, "--to", "gcp-batch", "--gpus-per-rank", "1", "--gpu-type", "nvidia-tesla-t5",
                       "--machine-type", "n1-highmem-8",
                       needle="--gpu-type nvidia-tesla-t5 is no GPU type of the machine table (did you mean nvidia-tesla-t4?)")
        expect_refused(self, "--to", "gcp-batch", "--machine-type", "a2-highgpu-2g", "--gpus-per-rank", "1",
                       needle="--machine-type a2-highgpu-2g carries 2 nvidia-tesla-a100 GPU(s)")
        expect_refused(self, "--to", "gcp-batch", "--gpu-type", "nvidia-l4", "--gpus-per-rank", "1", "--vcpus", "9",
                       needle="--vcpus 9 is more than g2-standard-8 (8 vCPU, 32 GB) has")
        expect_refused(self, "--to", "gcp-batch", "--gpu-type", "nvidia-l4", "--gpus-per-rank", "1", "--memory", "31G",
                       needle="--memory 31G is more than g2-standard-8 (8 vCPU, 32 GB) leaves")
        expect_refused(self, "--to", "gcp-batch", "--qos", "high", needle="--qos is a Slurm option")


if __name__ == "__main__":
    unittest.main(verbosity=2)
