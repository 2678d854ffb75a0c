"""device: auto routing by size and GPU quarantine (issue 26, points 3 and 4), on the stand-in CUDA
backend (tests/support/fake_cuda_backend: 4 fake GPUs at the library's dlopen seam), since this machine
has none; scripts/gpu-check runs the real one.

The fake backend runs no kernel, so the end-to-end routing test is an exec sweep with
auto_device.cpu_if (the built-in kinds' rules are unit tests: tests/runner/run/setup/auto_device_route_test.cpp).
A GPU's fault reports come from NVML in production; here SHARDRUN_TEST_GPU_FAULTS (the test-only
DeviceFaultSource of runner/gpu/device_fault_source.hpp) makes the listed CUDA ordinals report one
Xid during every task on them, and the task program fails there too, as a task on a dying GPU would."""
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job, task_labels

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")

# Records what the task was given: its CUDA_VISIBLE_DEVICES (-2 unset, -1 empty) and its rank; fails
# on the GPUs ROUTE_TEST_BAD_GPUS lists.
PROGRAM = r'''
import json, os, sys
visible = os.environ.get("CUDA_VISIBLE_DEVICES")
bad = [v for v in os.environ.get("ROUTE_TEST_BAD_GPUS", "").split(",") if v]
if visible is not None and visible in bad:
    sys.exit("cudaErrorECCUncorrectable on GPU " + visible)
values = {"visible": -2 if visible is None else -1 if visible == "" else int(visible.split(",")[0]),
          "rank": int(os.environ["OMPI_COMM_WORLD_RANK"])}
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump(values, f)
'''

# gpu_admission: off: these tests watch faults during tasks; the admission check before them
# (gpu_admission_test.py) would refuse a GPU that SHARDRUN_TEST_GPU_FAULTS makes report an Xid.
JOB = """
name: routing
task: exec
gpu_admission: off
{extra}
sweep: {{n: [10, 999, 1000, 5000, 20, 3000, 64, 100000]}}
output: {{path: {out}}}
exec:
  argv: [/usr/bin/python3, {program}]
  results: {{visible: int64, rank: int64}}
"""


def read_tasks(out):
    with h5py_module().File(out, "r") as f:
        return {
            "device": task_labels(f, "device"),
            "status": f["tasks/status"][:].tolist(),
            "attempts": f["tasks/attempts"][:].tolist(),
            "attempt_ranks": list(zip(f["attempts/task"][:].tolist(), f["attempts/rank"][:].tolist())),
            "rank": f["results/rank"][()].tolist(),
            "visible": f["results/visible"][()].tolist(),
        }


@unittest.skipIf(FAKE_BACKEND is None, "a CPU build (SHARDRUN_CUDA=OFF) loads no CUDA backend, so no stand-in "
                                       "GPUs: routing and quarantine are NOT tested end to end in this build")
class GpuRouteQuarantineTest(unittest.TestCase):
    def job(self, extra):
        work = scratch_dir()
        program = os.path.join(work, "task.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        out = os.path.join(work, "out.h5")
        return write_job(work, JOB.format(extra=extra, out=out, program=program)), out

    def run_job(self, extra, np, gpus="4", env=None):
        job, out = self.job(extra)
        proc = run(["run", job], np=np,
                   env={"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": gpus, **(env or {})})
        return proc, out

    # --- device: auto routes by size ---

    def test_small_tasks_go_to_the_cpu_large_ones_to_the_gpu(self):
        for np in (1, 2, 4):
            with self.subTest(np=np):
                proc, out = self.run_job('auto_device: {cpu_if: "n < 1000"}', np)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
                got = read_tasks(out)
                for n, device, visible, rank in zip([10, 999, 1000, 5000, 20, 3000, 64, 100000], got["device"],
                                                    got["visible"], got["rank"]):
                    if n < 1000:
                        # On the CPU, and its program sees no GPU either.
                        self.assertEqual((device, visible), ("cpu", -1), got)
                    else:
                        self.assertEqual(device, f"cuda:{rank}", got)  # one node: local rank r binds GPU r
                        self.assertEqual(visible, rank, got)

    def test_without_a_gpu_every_task_runs_on_the_cpu_as_before(self):
        proc, out = self.run_job('auto_device: {cpu_if: "n < 1000"}', 2, gpus="0")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
        got = read_tasks(out)
        self.assertEqual(set(got["device"]), {"cpu"}, got)
        self.assertEqual(set(got["visible"]), {-2}, "a rank without a GPU changes nothing in the task's environment")

    def test_plan_shows_the_routing(self):
        job, _ = self.job('auto_device: {cpu_if: "n < 1000"}')
        proc = run(["plan", job, "--ranks", "4", "--gpus-per-node", "4"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn('routing (device: auto): 4 tasks on the CPU, 4 on the GPU; auto_device.cpu_if in the job: "n < 1000"',
                      proc.stdout)
        proc = run(["plan", job, "--ranks", "4"])
        self.assertIn("no GPU planned, so all 8 tasks on the CPU", proc.stdout)

    # --- quarantine ---

    def faulty(self, np, bad, schedule, extra=""):
        return self.run_job(f"schedule: {schedule}\n{extra}", np,
                            env={"SHARDRUN_TEST_GPU_FAULTS": bad, "ROUTE_TEST_BAD_GPUS": bad})

    def test_a_failing_gpu_is_quarantined_and_its_tasks_finish_elsewhere(self):
        for np in (2, 4):
            for schedule in ("static", "dynamic"):
                with self.subTest(np=np, schedule=schedule):
                    proc, out = self.faulty(np, "0", schedule)
                    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
                    got = read_tasks(out)
                    self.assertEqual(set(got["status"]), {1}, got)
                    self.assertNotIn(0, got["rank"], "rank 0's GPU failed every task it was given")
                    # A device fault uses none of the task's retries: one recorded attempt per task,
                    # elsewhere; the faulted one on the bad GPU is counted (issue 35, point 3).
                    self.assertEqual(sorted(t for t, _ in got["attempt_ranks"]), list(range(len(got["status"]))))
                    self.assertNotIn(0, [r for _, r in got["attempt_ranks"]])
                    self.assertLessEqual(set(got["attempts"]), {1, 2}, got["attempts"])
                    if schedule == "static":
                        # Rank 0's static share has at least two tasks: both fault, and the GPU is out.
                        self.assertIn("rank 0: quarantined GPU cuda:0 (UUID GPU-test-0, CUDA_VISIBLE_DEVICES 0) on ",
                                      proc.stdout)
                        self.assertIn("after 2 device faults (gpu_fault_limit: 2): Xid 79 (GPU has fallen off the bus)",
                                      proc.stdout)

    def test_every_gpu_quarantined_ends_with_exit_1_and_says_so(self):
        for np, bad in ((1, "0"), (2, "0,1")):
            with self.subTest(np=np):
                proc, out = self.faulty(np, bad, "static")
                self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
                self.assertIn("every GPU of this job was quarantined (named above), so", proc.stdout)
                self.assertIn("rank 0: quarantined GPU cuda:0", proc.stdout)

    def test_a_higher_limit_keeps_the_gpu_longer(self):
        proc, out = self.faulty(2, "0", "static", extra="gpu_fault_limit: 3")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
        self.assertIn("after 3 device faults (gpu_fault_limit: 3)", proc.stdout)


class PlanRoutingTest(unittest.TestCase):
    """`plan` only describes made-up nodes (--gpus-per-node), so it needs no CUDA backend and runs in
    every build."""

    def test_a_job_that_names_its_device_routes_nothing(self):
        # It printed "routing (device: auto): 0 tasks on the CPU, 8 on the GPU; no CPU rule for this kind"
        # for a device: cuda job, whose kind (gemm) has a rule (found by docs/gpus.md's test).
        for device in ("cuda", "cpu"):
            with self.subTest(device=device):
                work = scratch_dir()
                job = write_job(work, f"name: named\ntask: gemm\ndevice: {device}\nsweep: {{n: [64, 4096]}}\n"
                                      f"output: {{path: {os.path.join(work, 'out.h5')}}}\n")
                proc = run(["plan", job, "--gpus-per-node", "4"])
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assertNotIn("routing", proc.stdout)

    def test_device_auto_still_shows_the_kinds_rule(self):
        work = scratch_dir()
        job = write_job(work, f"name: auto\ntask: gemm\nsweep: {{n: [64, 4096]}}\noutput: {{path: {os.path.join(work, 'out.h5')}}}\n")
        proc = run(["plan", job, "--gpus-per-node", "4"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn('routing (device: auto): 1 tasks on the CPU, 1 on the GPU; gemm\'s built-in rule: '
                      '"m < 1024 and n < 1024 and k < 1024"', proc.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
