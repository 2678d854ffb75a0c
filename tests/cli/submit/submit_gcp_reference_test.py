"""The Google Cloud Batch job of `shardrun submit --to gcp-batch`, checked field by field against the
API's reference, since no Google Cloud client runs offline: every field is one the request body
may set, of its type, every enum value one the reference lists, and the limits it states hold.

Reference: https://cloud.google.com/batch/docs/reference/rest/v1/projects.locations.jobs (Job and
the objects under it), LifecyclePolicy and TaskSpec.maxRetryCount as described there, and the
reserved exit codes at https://cloud.google.com/batch/docs/troubleshooting#reserved-exit-codes."""
import json
import re
import unittest

from submit_support import Submitted

# Each object of the reference: the fields a jobs.create body may set (output-only fields such as
# Job.name, uid, status, createTime and TaskGroup.name are left out: a request must not carry them).
INT64 = "int64"  # JSON number or decimal string (the reference's "string (int64 format)")
SCHEMA = {
    "Job": {"priority": INT64, "taskGroups": ["TaskGroup"], "allocationPolicy": "AllocationPolicy",
            "labels": "map", "logsPolicy": "LogsPolicy", "notifications": ["JobNotification"]},
    "TaskGroup": {"taskSpec": "TaskSpec", "taskCount": INT64, "parallelism": INT64,
                  "schedulingPolicy": ("enum", {"SCHEDULING_POLICY_UNSPECIFIED", "AS_SOON_AS_POSSIBLE", "IN_ORDER"}),
                  "taskEnvironments": ["Environment"], "taskCountPerNode": INT64, "requireHostsFile": "bool",
                  "permissiveSsh": "bool", "runAsNonRoot": "bool"},
    "TaskSpec": {"runnables": ["Runnable"], "computeResource": "ComputeResource", "maxRunDuration": "duration",
                 "maxRetryCount": "integer", "lifecyclePolicies": ["LifecyclePolicy"], "environments": "map",
                 "volumes": ["Volume"], "environment": "Environment"},
    "Runnable": {"container": "Container", "script": "Script", "barrier": "Barrier", "displayName": "string",
                 "ignoreExitStatus": "bool", "background": "bool", "alwaysRun": "bool", "environment": "Environment",
                 "timeout": "duration", "labels": "map"},
    "Container": {"imageUri": "string", "commands": ["string"], "entrypoint": "string", "volumes": ["string"],
                  "options": "string", "blockExternalNetwork": "bool", "username": "string", "password": "string",
                  "enableImageStreaming": "bool"},
    "Script": {"path": "string", "text": "string"},
    "Barrier": {"name": "string"},
    "ComputeResource": {"cpuMilli": INT64, "memoryMib": INT64, "bootDiskMib": INT64},
    "LifecyclePolicy": {"action": ("enum", {"ACTION_UNSPECIFIED", "RETRY_TASK", "FAIL_TASK"}),
                        "actionCondition": "ActionCondition"},
    "ActionCondition": {"exitCodes": ["integer"]},
    "Environment": {"variables": "map", "secretVariables": "map", "encryptedVariables": "KMSEnvMap"},
    "KMSEnvMap": {"keyName": "string", "cipherText": "string"},
    "Volume": {"nfs": "NFS", "gcs": "GCS", "deviceName": "string", "mountPath": "string", "mountOptions": ["string"]},
    "NFS": {"server": "string", "remotePath": "string"},
    "GCS": {"remotePath": "string"},
    "AllocationPolicy": {"location": "LocationPolicy", "instances": ["InstancePolicyOrTemplate"],
                         "serviceAccount": "ServiceAccount", "labels": "map", "network": "NetworkPolicy",
                         "placement": "PlacementPolicy", "tags": ["string"]},
    "LocationPolicy": {"allowedLocations": ["string"]},
    "ServiceAccount": {"email": "string", "scopes": ["string"]},
    "NetworkPolicy": {"networkInterfaces": ["NetworkInterface"]},
    "NetworkInterface": {"network": "string", "subnetwork": "string", "noExternalIpAddress": "bool"},
    "PlacementPolicy": {"collocation": "string", "maxDistance": INT64},
    "InstancePolicyOrTemplate": {"policy": "InstancePolicy", "instanceTemplate": "string", "installGpuDrivers": "bool",
                                 "installOpsAgent": "bool", "blockProjectSshKeys": "bool"},
    "InstancePolicy": {"machineType": "string", "minCpuPlatform": "string",
                       "provisioningModel": ("enum", {"PROVISIONING_MODEL_UNSPECIFIED", "STANDARD", "SPOT", "PREEMPTIBLE"}),
                       "accelerators": ["Accelerator"], "bootDisk": "Disk", "disks": ["AttachedDisk"],
                       "reservation": "string"},
    "Accelerator": {"type": "string", "count": INT64, "driverVersion": "string"},
    "Disk": {"image": "string", "snapshot": "string", "type": "string", "sizeGb": INT64, "diskInterface": "string"},
    "AttachedDisk": {"newDisk": "Disk", "existingDisk": "string", "deviceName": "string"},
    "LogsPolicy": {"destination": ("enum", {"DESTINATION_UNSPECIFIED", "CLOUD_LOGGING", "PATH"}), "logsPath": "string",
                   "cloudLoggingOption": "CloudLoggingOption"},
    "CloudLoggingOption": {"useGenericTaskMonitoredResource": "bool"},
    "JobNotification": {"pubsubTopic": "string", "message": "Message"},
    "Message": {"type": "string", "newJobState": "string", "newTaskState": "string"},
}
# Batch's reserved exit codes for a VM that went away: preempted, stopped reporting, rebooted, recreated
# (50004, unresponsive task, and 50005, over maxRunDuration, are the task's own doing).
LOST_VM_CODES = {50001, 50002, 50003, 50006}
LABEL = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")  # Compute Engine label keys (values may also be empty or start with a digit)


def check(test, value, kind, where):
    """Fails `test` unless `value` is of the reference's `kind` at JSON path `where`."""
    if isinstance(kind, list):
        test.assertIsInstance(value, list, where)
        for i, item in enumerate(value):
            check(test, item, kind[0], f"{where}[{i}]")
    elif isinstance(kind, tuple):
        test.assertIn(value, kind[1], f"{where}: not an enum value of the reference")
    elif kind == INT64:
        test.assertTrue(isinstance(value, int) or (isinstance(value, str) and value.isdigit()), where)
    elif kind == "integer":
        test.assertIsInstance(value, int, where)
    elif kind == "bool":
        test.assertIsInstance(value, bool, where)
    elif kind == "string":
        test.assertIsInstance(value, str, where)
    elif kind == "duration":  # google.protobuf.Duration in JSON: seconds with an "s"
        test.assertRegex(value, r"^\d+(\.\d{1,9})?s$", where)
    elif kind == "map":
        test.assertIsInstance(value, dict, where)
        test.assertTrue(all(isinstance(v, str) for v in value.values()), where)
    else:
        test.assertIsInstance(value, dict, where)
        unknown = set(value) - set(SCHEMA[kind])
        test.assertFalse(unknown, f"{where}: fields {sorted(unknown)} are not in the reference's {kind}")
        for field, item in value.items():
            check(test, item, SCHEMA[kind][field], f"{where}.{field}")


class GcpJobMatchesTheReferenceTest(unittest.TestCase):
    def check_job(self, *options):
        s = Submitted(self, "gcp-batch", *options)
        job = s.json("job.json")
        check(self, job, "Job", "job")
        # Limits the reference states: one task group, one instance policy, one lifecycle policy
        # ("Currently we only support one lifecycle policy"), maxRetryCount in [0, 10].
        self.assertEqual(len(job["taskGroups"]), 1)
        group = job["taskGroups"][0]
        self.assertGreaterEqual(int(group["taskCount"]), 1)
        self.assertLessEqual(int(group["parallelism"]), int(group["taskCount"]))
        spec = group["taskSpec"]
        self.assertIn(spec["maxRetryCount"], range(0, 11))
        self.assertEqual(len(spec["lifecyclePolicies"]), 1)
        codes = set(spec["lifecyclePolicies"][0]["actionCondition"]["exitCodes"])
        self.assertEqual(spec["lifecyclePolicies"][0]["action"], "RETRY_TASK")
        self.assertEqual(codes, {3} | LOST_VM_CODES, "retry a drain (3) and a lost VM, fail 1, 2 and the rest")
        self.assertGreater(int(spec["computeResource"]["cpuMilli"]), 0)
        self.assertGreater(int(spec["computeResource"]["memoryMib"]), 0)
        self.assertEqual(len(spec["runnables"]), 1)
        self.assertRegex(spec["runnables"][0]["container"]["options"], r"^--shm-size=\d+m$")
        for key, value in job["labels"].items():
            self.assertRegex(key, LABEL)
            self.assertRegex(value, r"^[a-z0-9_-]{0,63}$")
        # A CPU job with --service-account has an allocationPolicy without instances.
        if "instances" in job.get("allocationPolicy", {}):
            self.assertEqual(len(job["allocationPolicy"]["instances"]), 1, "only instances[0] is supported")
        return job

    def test_gpu_job_on_spot_with_a_time_limit(self):
        job = self.check_job("--array", "6", "--ranks-per-node", "2", "--gpus-per-rank", "1", "--gpu-type", "nvidia-l4",
                             "--spot", "--time", "1:30:00")
        self.assertEqual(job["taskGroups"][0]["taskSpec"]["maxRunDuration"], "5400s")
        self.assertEqual(job["allocationPolicy"]["instances"][0]["policy"]["provisioningModel"], "SPOT")

    def test_attached_gpus_and_options(self):
        job = self.check_job("--gpus-per-rank", "1", "--machine-type", "n1-standard-16", "--vcpus", "12",
                             "--memory", "40G", "--shm-size", "10G")
        self.assertEqual(job["allocationPolicy"]["instances"][0]["policy"]["accelerators"],
                         [{"type": "nvidia-tesla-t4", "count": 1}])

    def test_the_check_catches_what_the_reference_lacks(self):
        job = self.check_job()
        for path, stray in [(("taskGroups", 0, "taskSpec"), {"maxRetries": 3}),
                            (("logsPolicy",), {"destination": "STACKDRIVER"}),
                            (("taskGroups", 0, "taskSpec"), {"maxRunDuration": "90m"})]:
            broken = json.loads(json.dumps(job))
            target = broken
            for step in path:
                target = target[step]
            target.update(stray)
            with self.assertRaises(AssertionError, msg=str(stray)):
                check(self, broken, "Job", "job")

    def test_service_account_with_and_without_gpus(self):
        account = "shardrun-runner@my-project.iam.gserviceaccount.com"
        for options in ([], ["--gpus-per-rank", "1", "--gpu-type", "nvidia-l4"]):
            job = self.check_job("--service-account", account, *options)
            self.assertEqual(job["allocationPolicy"]["serviceAccount"], {"email": account})

    def test_cpu_job(self):
        job = self.check_job("--ranks-per-node", "4")
        self.assertNotIn("allocationPolicy", job)


if __name__ == "__main__":
    unittest.main(verbosity=2)
