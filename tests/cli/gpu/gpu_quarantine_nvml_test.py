"""Quarantine fed by NVML itself (issue 26, points 2 and 3 together): the rank's telemetry sampler is
quarantine's source of evidence, so an Xid the driver reports during a task counts against the GPU.
The GPUs are the stand-in CUDA backend and NVML the stand-in libnvidia-ml.so.1 (tests/support/
fake_nvml, `xid_every_poll 79`: device 0 reports Xid 79 at every poll, to the process watching it),
both at the same dlopen seams as the real ones; scripts/gpu-check runs the real ones. No test-only
fault source is involved (SHARDRUN_TEST_GPU_FAULTS is unset)."""
import json
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")
FAKE_NVML = os.environ.get("SHARDRUN_TEST_FAKE_NVML")

# A task on a dying GPU fails; shardrun must not believe the task's words, only the driver's Xid.
PROGRAM = r'''
import json, os, sys
visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
if visible == "0":
    sys.exit("the GPU stopped answering")
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"rank": int(os.environ["OMPI_COMM_WORLD_RANK"])}, f)
'''

# gpu_admission: off: this test is about faults during tasks; the admission check before them
# would refuse the GPU whose Xid comes at every poll (gpu_admission_test.py covers that).
JOB = """
name: xid
task: exec
gpu_admission: off
device: cuda
schedule: {schedule}
retries: 2
sweep: {{x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}}
output: {{path: {out}}}
exec:
  argv: [/usr/bin/python3, {program}]
  results: {{rank: int64}}
"""


@unittest.skipIf(FAKE_BACKEND is None or FAKE_NVML is None,
                 "a CPU build (SHARDRUN_CUDA=OFF) loads no CUDA backend, so no stand-in GPUs: quarantine fed "
                 "by NVML is NOT tested in this build")
class GpuQuarantineNvmlTest(unittest.TestCase):
    def run_job(self, np, schedule, script):
        work = scratch_dir()
        program = os.path.join(work, "task.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        nvml_script = os.path.join(work, "nvml.txt")
        with open(nvml_script, "w") as f:
            f.write(script)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.format(schedule=schedule, out=out, program=program))
        env = {"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4", "SHARDRUN_NVML_LIBRARY": FAKE_NVML,
               "SHARDRUN_FAKE_NVML_SCRIPT": nvml_script, "SHARDRUN_TEST_GPU_FAULTS": ""}
        return run(["run", job], np=np, env=env), out

    def test_an_xid_from_nvml_quarantines_the_gpu_and_its_tasks_finish_elsewhere(self):
        for np in (2, 4):
            for schedule in ("static", "dynamic"):
                with self.subTest(np=np, schedule=schedule):
                    proc, out = self.run_job(np, schedule, "xid_every_poll 79\nprocesses none 0\n")
                    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
                    with h5py_module().File(out, "r") as f:
                        ranks = f["results/rank"][()].tolist()
                        attempts = f["tasks/attempts"][:].tolist()
                        attempt_ranks = list(zip(f["attempts/task"][:].tolist(), f["attempts/rank"][:].tolist()))
                        status = f["tasks/status"][:].tolist()
                    self.assertEqual(set(status), {1}, status)
                    self.assertEqual(len(ranks), 12)
                    self.assertNotIn(0, ranks, "rank 0's GPU reported an Xid during every task")
                    # A device fault uses none of the task's retries: one recorded attempt per task,
                    # elsewhere; the faulted one on the quarantined GPU is counted (issue 35, point 3).
                    self.assertEqual(sorted(t for t, _ in attempt_ranks), list(range(12)), attempt_ranks)
                    self.assertNotIn(0, [r for _, r in attempt_ranks])
                    self.assertLessEqual(set(attempts), {1, 2}, attempts)
                    self.assertIn("rank 0: quarantined GPU cuda:0 (UUID GPU-fa4e0000-0000-0000-0000-000000000000, "
                                  "CUDA_VISIBLE_DEVICES 0) on ", proc.stdout)
                    self.assertIn("Xid 79 (GPU has fallen off the bus)", proc.stdout)
                    self.check_status_and_report_name_it(out)

    def check_status_and_report_name_it(self, out):
        """status and report read the quarantine from the results file, after the run's summary is gone."""
        named = "rank 0: quarantined GPU cuda:0 (UUID GPU-fa4e0000-0000-0000-0000-000000000000, CUDA_VISIBLE_DEVICES 0)"
        status = run(["status", out])
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        self.assertIn("GPU out of the job: " + named, status.stdout)
        self.assertIn("Xid 79", status.stdout)
        as_json = run(["status", out, "--json"])
        quarantined = json.loads(as_json.stdout)["quarantined"]
        self.assertEqual(len(quarantined), 1, quarantined)
        self.assertTrue(quarantined[0].startswith(named), quarantined)
        stats_path = out + ".stats.json"
        report = run(["report", out, "--png", out + ".png", "--stats", stats_path])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        self.assertIn("report: GPU out of the job: " + named, report.stdout)
        with open(stats_path) as f:
            self.assertEqual(json.load(f)["quarantined"], quarantined)

    def test_a_healthy_gpu_is_never_quarantined(self):
        proc, out = self.run_job(2, "static", "processes none 0\n")
        self.assertEqual(proc.returncode, 1, "rank 0's tasks fail (no Xid: the task's own failure) "
                         + proc.stdout + proc.stderr)
        self.assertNotIn("quarantined", proc.stdout + proc.stderr)
        with h5py_module().File(out, "r") as f:
            attempts = f["tasks/attempts"][:].tolist()
        self.assertIn(3, attempts, "without the driver's evidence a failed task uses its retries")
        status = run(["status", out])
        self.assertNotIn("GPU out of the job", status.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
