"""Per-task GPU telemetry (issue 26, point 2): /tasks/gpu_* from NVML samples, with units,
read by xarray, shown by `table --columns` and by the report's GPU panel; absent (and `info`
says why) without NVML; a scripted Xid in the task's evidence. NVML is a stand-in
libnvidia-ml.so.1 at the same dlopen seam (tests/support/fake_nvml, values scripted by
SHARDRUN_FAKE_NVML_SCRIPT), the GPUs the stand-in CUDA backend (tests/support/fake_cuda_backend);
scripts/gpu-check runs the real ones. A CPU build binds no rank to a GPU: skipped."""
import json
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job
from xarray_check import check_results_file, ensure_xarray

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")
FAKE_NVML = os.environ.get("SHARDRUN_TEST_FAKE_NVML") or os.path.join(
    os.environ.get("SHARDRUN_BUILD_DIR", ""), "tests", "fake_nvml", "libnvidia-ml.so.1")
COLUMNS = ("gpu_mem_peak", "gpu_util_mean", "gpu_util_peak", "gpu_energy_j", "gpu_temp_max", "gpu_xid_events")
UNITS = {"gpu_mem_peak": "bytes", "gpu_util_mean": "percent", "gpu_util_peak": "percent", "gpu_energy_j": "J",
         "gpu_temp_max": "degC", "gpu_xid_events": "1"}
POWER_W = 200
PROCESS_BYTES = 3 * 2**20

SCRIPT = f"""
util 40
power_w {POWER_W}
temp 65
memory_used 2147483648
{{extra}}
"""

JOB = """
name: telemetry
task: exec
device: cuda
sweep: {{x: [1, 2, 3, 4]}}
output: {{path: {out}, layout: {layout}}}
{extra}
exec:
  argv: [/usr/bin/python3, -c, "import time; time.sleep(0.4)"]
"""


@unittest.skipIf(FAKE_BACKEND is None, "a CPU build (SHARDRUN_CUDA=OFF) binds no rank to a GPU, so no GPU "
                                       "telemetry: /tasks/gpu_* is NOT tested in this build")
class GpuTelemetryTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "out.h5")

    def env(self, script="", nvml=None):
        path = os.path.join(self.work, "nvml.txt")
        with open(path, "w") as f:
            f.write(SCRIPT.format(extra=script))
        return {"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4",
                "SHARDRUN_NVML_LIBRARY": nvml or FAKE_NVML, "SHARDRUN_FAKE_NVML_SCRIPT": path}

    def run_job(self, np=1, layout="shards", extra="", script=f"processes self {PROCESS_BYTES}", nvml=None, args=()):
        job = write_job(self.work, JOB.format(out=self.out, layout=layout, extra=extra))
        proc = run(["run", job, *args], np=np, env=self.env(script, nvml))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(self.out))
        return proc

    def columns(self, path=None):
        with h5py_module().File(path or self.out, "r") as f:
            tasks = f["tasks"]
            if "gpu_mem_peak" not in tasks:
                return None
            got = {c: tasks[c][()].tolist() for c in COLUMNS}
            got["units"] = {c: tasks[c].attrs["units"] for c in COLUMNS}
            got["scope"] = tasks["gpu_mem_peak"].attrs["scope"]
            got["seconds"] = (tasks["end"][()] - tasks["start"][()]).tolist()
            return got

    def assert_plausible(self, got, scope="process", mem=PROCESS_BYTES):
        self.assertEqual(got["units"], UNITS)
        self.assertTrue(got["scope"].startswith(scope), got["scope"])
        self.assertEqual(got["gpu_mem_peak"], [mem] * 4)
        self.assertEqual(got["gpu_util_mean"], [40.0] * 4)
        self.assertEqual(got["gpu_util_peak"], [40.0] * 4)
        self.assertEqual(got["gpu_temp_max"], [65.0] * 4)
        self.assertEqual(got["gpu_xid_events"], [0] * 4)
        for energy, seconds in zip(got["gpu_energy_j"], got["seconds"]):
            # The window opens before the task's process starts and closes after it is reaped:
            # at least power x the task's own time, and not much more.
            self.assertGreaterEqual(energy, 0.9 * POWER_W * seconds, got)
            self.assertLessEqual(energy, POWER_W * (seconds + 2.0), got)

    def test_one_rank_columns_xarray_table_report(self):
        self.run_job(np=1)

        got = self.columns()
        self.assertIsNotNone(got, "no /tasks/gpu_* columns")
        self.assert_plausible(got)
        check_results_file(self, self.out, 4)
        table = run(["table", self.out, "--columns", "gpu_mem_peak,gpu_util_mean,gpu_energy_j,gpu_temp_max", "--csv"])
        self.assertEqual(table.returncode, 0, table.stderr)
        header = table.stdout.splitlines()[0].split(",")
        for name in ("gpu_mem_peak", "gpu_util_mean", "gpu_energy_j", "gpu_temp_max"):
            self.assertIn(name, header)
        row = dict(zip(header, table.stdout.splitlines()[1].split(",")))
        self.assertEqual(int(row["gpu_mem_peak"]), PROCESS_BYTES, table.stdout)
        self.assertEqual(float(row["gpu_temp_max"]), 65.0, table.stdout)
        stats = os.path.join(self.work, "stats.json")
        png = os.path.join(self.work, "report.png")
        report = run(["report", self.out, "--png", png, "--stats", stats])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        self.assertTrue(os.path.getsize(png) > 0)
        with open(stats) as f:
            gpu = json.load(f)["gpu"]
        self.assertEqual((gpu["tasks_measured"], gpu["mem_peak_bytes"], gpu["temp_max_c"], gpu["xid_events"]),
                         (4, PROCESS_BYTES, 65.0, 0), gpu)
        self.assertGreater(gpu["energy_j_total"], 0)

    def test_two_ranks_shards_and_single(self):
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                self.run_job(np=2, layout=layout, args=("--force",))
                got = self.columns()
                self.assertIsNotNone(got, f"{layout}: no /tasks/gpu_* columns")
                self.assert_plausible(got)
                check_results_file(self, self.out, 4)

    def test_merge_of_array_elements_keeps_the_columns(self):
        for index in (0, 1):
            self.run_job(np=2, args=("--array-index", str(index), "--array-count", "2"))
        merge = run(["merge", self.out])
        self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
        self.assert_plausible(self.columns())
        check_results_file(self, self.out, 4)

    def test_container_without_process_list_reports_device_memory(self):
        # NVML lists nothing (a container's PID namespace), or only a process not of the rank.
        for listed in ("none", "foreign 4096"):
            with self.subTest(listed=listed):
                self.run_job(np=1, script=f"processes {listed}", args=("--force",))
                self.assert_plausible(self.columns(), scope="device", mem=2147483648)

    def test_without_nvml_columns_absent_and_info_says_why(self):
        missing = os.path.join(self.work, "no-such-libnvidia-ml.so.1")
        proc = self.run_job(np=2, nvml=missing)

        self.assertIsNone(self.columns(), "gpu columns written without NVML")
        self.assertIn("no GPU telemetry", proc.stderr)
        self.assertIn("no-such-libnvidia-ml.so.1", proc.stderr)
        info = run(["info"], env=self.env(nvml=missing))
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertIn("telemetry   none, /tasks/gpu_* left out: no NVML library", info.stdout)
        info = run(["info", "--json"], env=self.env())
        self.assertEqual(info.returncode, 0, info.stderr)
        telemetry = json.loads(info.stdout)["gpu_telemetry"]
        self.assertTrue(telemetry["available"], telemetry)
        self.assertEqual(telemetry["driver_version"], "999.99-fake")
        self.assertEqual(len(telemetry["devices"]), 4)
        self.assertTrue(telemetry["devices"][0]["uuid"].startswith("GPU-"), telemetry)

    def test_loaded_through_ld_library_path(self):
        env = self.env()
        env.pop("SHARDRUN_NVML_LIBRARY")
        env["LD_LIBRARY_PATH"] = os.path.dirname(FAKE_NVML) + ":" + os.environ.get("LD_LIBRARY_PATH", "")
        info = run(["info"], env=env)
        self.assertIn("NVML (driver 999.99-fake", info.stdout, info.stdout + info.stderr)
        self.assertIn("Fake NVIDIA H100 0", info.stdout)

    def test_telemetry_off(self):
        self.run_job(np=1, extra="telemetry_interval: off")

        self.assertIsNone(self.columns())

    def test_bad_interval_is_one_line_exit_2(self):
        job = write_job(self.work, JOB.format(out=self.out, layout="shards", extra="telemetry_interval: 10ms"))
        proc = run(["run", job], env=self.env())
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("telemetry_interval: must be off", proc.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_scripted_xid_is_the_tasks_evidence(self):
        proc = self.run_job(np=1, extra="schedule: static", script="processes self 1024\nxid_at_poll 2 79")

        got = self.columns()
        self.assertEqual(sum(got["gpu_xid_events"]), 1, got)
        self.assertIn("the GPU reported Xid 79 (GPU has fallen off the bus)", proc.stderr)

    def test_scripted_ecc_growth_is_one_tasks_evidence(self):
        proc = self.run_job(np=1, extra="schedule: static", script="processes self 1024\necc_at_poll 3 2")

        self.assertEqual(proc.stderr.count("the GPU reported 2 new uncorrected ECC errors"), 1, proc.stderr)
        self.assertEqual(self.columns()["gpu_xid_events"], [0] * 4)


if __name__ == "__main__":
    ensure_xarray()
    unittest.main()
