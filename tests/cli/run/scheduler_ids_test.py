"""Scheduler ids in provenance (issue 35, point 10): the job, array, step and cluster ids that
Slurm, AWS Batch and Google Batch set are recorded in each array element's manifest
(<output>.shards/a<i>/element.json) and as the master's root attributes (one per variable, named
as it, listed in `scheduler_ids`), and `shardrun status` shows them. A merged master keeps only
the ids its elements share (the array job's, not an element's own task id). The variables are set
for runs under mpiexec, with --array-index/--array-count where the array's size is not in them."""
import json
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

SLURM = {"SLURM_JOB_ID": "4242", "SLURM_ARRAY_JOB_ID": "4240", "SLURM_ARRAY_TASK_ID": "2",
         "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_STEP_ID": "0",
         "SLURM_CLUSTER_NAME": "testcluster"}


class SchedulerIdsTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.output = os.path.join(self.work, "ids.h5")
        self.job = write_job(self.work, f"""
name: ids
task: noop
sweep: {{i: [0, 1, 2, 3]}}
output: {{path: {self.output}}}
""")

    def manifest(self, index=0):
        with open(os.path.join(self.output + ".shards", f"a{index}", "element.json")) as f:
            return json.load(f)["metadata"]

    def master_attrs(self):
        with h5py_module().File(self.output, "r") as f:
            names = [str(name) for name in f.attrs["scheduler_ids"]]
            return str(f.attrs["scheduler"]), {name: str(f.attrs[name]) for name in names}

    def test_slurm_ids_reach_manifest_master_and_status(self):
        proc = run(["run", self.job, "-q"], np=2, env=SLURM)
        status = run(["status", self.output])

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        manifest = self.manifest()
        self.assertEqual(manifest["scheduler"], "slurm")
        self.assertEqual(manifest["scheduler_ids"], {k: v for k, v in SLURM.items()
                                                     if k not in ("SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT")})
        scheduler, ids = self.master_attrs()
        self.assertEqual(scheduler, "slurm")
        self.assertEqual(ids["SLURM_JOB_ID"], "4242")
        self.assertEqual(ids["SLURM_ARRAY_JOB_ID"], "4240")
        self.assertEqual(ids["SLURM_ARRAY_TASK_ID"], "2")
        self.assertEqual(ids["SLURM_STEP_ID"], "0")
        self.assertEqual(ids["SLURM_CLUSTER_NAME"], "testcluster")
        self.assertEqual(status.returncode, 0, status.stderr)
        self.assertIn("scheduler: slurm SLURM_ARRAY_JOB_ID=4240 SLURM_ARRAY_TASK_ID=2 SLURM_CLUSTER_NAME=testcluster "
                      "SLURM_JOB_ID=4242 SLURM_STEP_ID=0", status.stdout)

    def test_aws_batch_ids(self):
        env = {"AWS_BATCH_JOB_ID": "abc-123", "AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JQ_NAME": "queue-1"}

        proc = run(["run", self.job, "-q", "--array-count", "1"], np=2, env=env)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.manifest()["scheduler_ids"], env)
        self.assertEqual(self.master_attrs(), ("aws-batch", env))

    def test_google_batch_ids(self):
        env = {"BATCH_JOB_UID": "job-uid-7", "BATCH_TASK_INDEX": "0", "BATCH_TASK_COUNT": "1"}

        proc = run(["run", self.job, "-q"], np=2, env=env)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.manifest()["scheduler"], "gcp-batch")
        self.assertEqual(self.master_attrs(), ("gcp-batch", env))

    def test_no_scheduler_records_none(self):
        proc = run(["run", self.job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.manifest()["scheduler_ids"], {})
        self.assertEqual(self.master_attrs(), ("mpirun", {}))

    def test_a_merged_master_keeps_the_ids_its_elements_share(self):
        for index in (0, 1):
            env = {"SLURM_JOB_ID": str(4240 + index + 1), "SLURM_ARRAY_JOB_ID": "4240",
                   "SLURM_ARRAY_TASK_ID": str(index), "SLURM_ARRAY_TASK_COUNT": "2"}
            proc = run(["run", self.job, "-q"], np=2, env=env)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

        merge = run(["merge", self.output])

        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assertEqual(self.manifest(1)["scheduler_ids"]["SLURM_ARRAY_TASK_ID"], "1")
        self.assertEqual(self.master_attrs(), ("slurm", {"SLURM_ARRAY_JOB_ID": "4240"}))


if __name__ == "__main__":
    unittest.main()
