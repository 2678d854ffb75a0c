"""GPM efficiency per task (issue 38, points 2 and 4): /tasks/gpu_sm_active, gpu_sm_occupancy,
gpu_tensor_active and gpu_dram_bw from the stand-in NVML's GPM counters (per device, scripted),
through shards, layout single, the master and `merge` of array elements, read by h5py and xarray;
`report` weighs GPU-hours by SM activity, flags the tasks of the device scripted at 5 % as "GPU
mostly idle" and names the worst; `table` shows the columns. Without GPM (`gpm off`, a pre-Hopper
GPU) the columns are absent and `info` says why. Per-task GPU joules sum to the device's energy over
the run within 5 %. The GPUs are the stand-in CUDA backend's: a CPU build binds no rank to a GPU
and skips, saying so."""
import json
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job
from xarray_check import check_results_file, ensure_xarray

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")
FAKE_NVML = os.environ.get("SHARDRUN_TEST_FAKE_NVML") or os.path.join(
    os.environ.get("SHARDRUN_BUILD_DIR", ""), "tests", "fake_nvml", "libnvidia-ml.so.1")
GPM = ("gpu_sm_active", "gpu_sm_occupancy", "gpu_tensor_active", "gpu_dram_bw")
POWER_W = 300

# Device 1 is a spin task's GPU: busy by NVML's utilisation, idle by GPM's SM activity.
SCRIPT = f"""
util 95
power_w {POWER_W}
processes self 1024
gpm_sm_active 92 5
gpm_sm_occupancy 40 1
gpm_tensor 60 0
gpm_dram_bw 30 2
{{extra}}
"""

JOB = """
name: gpm
task: exec
device: cuda
schedule: static
sweep: {{x: [1, 2, 3, 4, 5, 6, 7, 8]}}
output: {{path: {out}, layout: {layout}}}
exec:
  argv: [/usr/bin/python3, -c, "import time; time.sleep(0.5)"]
"""


@unittest.skipIf(FAKE_BACKEND is None, "a CPU build (SHARDRUN_CUDA=OFF) binds no rank to a GPU, so no GPM "
                                       "columns: /tasks/gpu_sm_active etc. are NOT tested in this build")
class GpuGpmTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "out.h5")

    def env(self, extra=""):
        path = os.path.join(self.work, "nvml.txt")
        with open(path, "w") as f:
            f.write(SCRIPT.format(extra=extra))
        return {"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4",
                "SHARDRUN_NVML_LIBRARY": FAKE_NVML, "SHARDRUN_FAKE_NVML_SCRIPT": path}

    def run_job(self, np=2, layout="shards", extra="", args=()):
        job = write_job(self.work, JOB.format(out=self.out, layout=layout))
        proc = run(["run", job, *args], np=np, env=self.env(extra))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(self.out))
        return proc

    def tasks(self):
        with h5py_module().File(self.out, "r") as f:
            t = f["tasks"]
            got = {c: (t[c][()].tolist() if c in t else None) for c in GPM + ("rank", "start", "end", "gpu_energy_j")}
            got["units"] = {c: t[c].attrs["units"] for c in GPM if c in t}
        return got

    def assert_gpm(self, got):
        self.assertEqual(got["units"], {c: "percent" for c in GPM})
        for i, rank in enumerate(got["rank"]):
            # Rank r is bound to device r: device 0 is the GEMM's, device 1 the spin's.
            expected = (92.0, 40.0, 60.0, 30.0) if rank == 0 else (5.0, 1.0, 0.0, 2.0)
            # Interval-weighted means of the fake's constant values: equal up to rounding (1e-9 %).
            self.assertEqual(tuple(round(got[c][i], 9) for c in GPM), expected, got)

    def test_columns_through_shards_single_and_xarray(self):
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                self.run_job(layout=layout, args=("--force",))
                self.assert_gpm(self.tasks())
                check_results_file(self, self.out, 8)

    def test_merge_of_array_elements_keeps_the_columns(self):
        for index in (0, 1):
            self.run_job(args=("--array-index", str(index), "--array-count", "2"))
        merge = run(["merge", self.out])
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assert_gpm(self.tasks())
        check_results_file(self, self.out, 8)

    def test_report_flags_mostly_idle_and_names_the_worst_table_shows_them(self):
        self.run_job()
        got = self.tasks()
        stats = os.path.join(self.work, "stats.json")
        report = run(["report", self.out, "--png", os.path.join(self.work, "r.png"), "--stats", stats])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        idle = sorted(i for i, rank in enumerate(got["rank"]) if rank == 1)
        for task in idle:
            self.assertIn(f"GPU mostly idle: task {task}: SM activity 5 %", report.stdout)
        with open(stats) as f:
            cost = json.load(f)["cost"]
        self.assertEqual(sorted(t["task"] for t in cost["gpu_mostly_idle"]), idle)
        self.assertIn(cost["worst"]["task"], idle)
        hours = [(e - s) / 3600 for s, e in zip(got["start"], got["end"])]
        weighted = sum(h * sm / 100 for h, sm in zip(hours, got["gpu_sm_active"]))
        self.assertAlmostEqual(cost["gpu_hours_sm_weighted"], weighted, places=9)
        table = run(["table", self.out, "--columns", ",".join(GPM + ("gpu_hours_active",)), "--csv"])
        self.assertEqual(table.returncode, 0, table.stderr)
        header = table.stdout.splitlines()[0].split(",")
        for name in GPM + ("gpu_hours_active",):
            self.assertIn(name, header, table.stdout)

    def test_per_task_joules_sum_to_the_devices_energy(self):
        self.run_job(np=2)
        got = self.tasks()
        for rank in (0, 1):
            ids = [i for i, r in enumerate(got["rank"]) if r == rank]
            joules = sum(got["gpu_energy_j"][i] for i in ids)
            # The stand-in's counter grows at POWER_W all the time; the rank's tasks ran back to back.
            device = POWER_W * (max(got["end"][i] for i in ids) - min(got["start"][i] for i in ids))
            self.assertAlmostEqual(joules, device, delta=0.05 * device, msg=(rank, joules, device))

    def test_without_gpm_columns_absent_and_info_says_why(self):
        self.run_job(extra="gpm off")
        got = self.tasks()
        for c in GPM:
            self.assertIsNone(got[c], f"{c} written without GPM")
        info = run(["info"], env=self.env("gpm off"))
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertIn("GPM         none, /tasks/gpu_sm_active etc. left out: Fake NVIDIA H100 0 does not support GPM",
                      info.stdout)
        info = run(["info"], env=self.env())
        self.assertIn("GPM         SM activity, occupancy, tensor, DRAM bandwidth per task", info.stdout)


if __name__ == "__main__":
    ensure_xarray()
    unittest.main()
