"""GPU admission (issue 38, point 1): before its first claim each GPU rank checks its GPU (a GEMM
and a device-to-device copy through the CUDA backend seam; clocks, throttle reasons, Xid and ECC
from NVML). The GPUs are the stand-in CUDA backend (tests/support/fake_cuda_backend:
SHARDRUN_FAKE_GPU_SLOWDOWN="2=2" makes device 2's GEMM and copy take twice as long) and NVML the
stand-in libnvidia-ml.so.1 (tests/support/fake_nvml: `xid_every_poll 79` makes device 0 report
Xid 79, `throttle 2 0x44` device 2's clocks held back by power and heat), at the same dlopen seams
as the real ones; scripts/gpu-check runs the real ones. Of four GPUs, the slowed one and the one
with Xid 79 run no task, and the summary, `status`, `report` and the results file's /gpus (h5py and
xarray) name them with their evidence. The job field's errors are checked in every build."""
import json
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job
from xarray_check import ensure_xarray

ensure_xarray()

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")
FAKE_NVML = os.environ.get("SHARDRUN_TEST_FAKE_NVML")

PROGRAM = r'''
import json, os
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"rank": int(os.environ["OMPI_COMM_WORLD_RANK"])}, f)
'''

JOB = """
name: admit
task: exec
device: cuda
schedule: {schedule}
sweep: {{x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}}
output: {{path: {out}}}
exec:
  argv: [/usr/bin/python3, {program}]
  results: {{rank: int64}}
{extra}
"""

UUID = "GPU-fa4e0000-0000-0000-0000-00000000000{}"


def uuid(index):
    return UUID.format(index)


@unittest.skipIf(FAKE_BACKEND is None or FAKE_NVML is None,
                 "a CPU build (SHARDRUN_CUDA=OFF) loads no CUDA backend, so no stand-in GPUs: GPU admission is NOT "
                 "tested in this build (its job field's errors are)")
class GpuAdmissionTest(unittest.TestCase):
    def run_job(self, np, nvml_script, slowdown, schedule="dynamic", extra="", gpus=4, args=(), work=None,
                program_text=PROGRAM):
        work = work or scratch_dir()
        program = os.path.join(work, "task.py")
        with open(program, "w") as f:
            f.write(program_text)
        script = os.path.join(work, "nvml.txt")
        with open(script, "w") as f:
            f.write(f"devices {gpus}\nprocesses none 0\n" + nvml_script)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.format(schedule=schedule, out=out, program=program, extra=extra))
        env = {"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": str(gpus), "SHARDRUN_NVML_LIBRARY": FAKE_NVML,
               "SHARDRUN_FAKE_NVML_SCRIPT": script, "SHARDRUN_TEST_GPU_FAULTS": "",
               "SHARDRUN_FAKE_GPU_SLOWDOWN": slowdown}
        return run(["run", job, *args], np=np, env=env), out

    def gpus_table(self, out):
        with h5py_module().File(out, "r") as f:
            g = f["gpus"]
            return {name: (g[name].asstr()[...].tolist() if g[name].dtype.kind == "O" else g[name][...].tolist())
                    for name in g if name != "gpu"}

    def test_the_slowed_gpu_and_the_one_with_xid_79_run_no_task(self):
        for schedule in ("dynamic", "static"):
            with self.subTest(schedule=schedule):
                proc, out = self.run_job(4, "xid_every_poll 79\nthrottle 2 0x44\nclocks 2 990 2619\n", "2=2",
                                         schedule=schedule)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
                with h5py_module().File(out, "r") as f:
                    self.assertEqual(f["tasks/status"][:].tolist(), [1] * 12)
                    ranks = f["results/rank"][:].tolist()
                    attempt_ranks = f["attempts/rank"][:].tolist()
                self.assertEqual(sorted(set(ranks)), [1, 3], "ranks 0 (Xid 79) and 2 (0.5x) took no task")
                self.assertEqual(sorted(set(attempt_ranks)), [1, 3])
                xid_line = (f"rank 0: not admitted: GPU cuda:0 (UUID {uuid(0)}, CUDA_VISIBLE_DEVICES 0) on ")
                slow_line = (f"rank 2: not admitted: GPU cuda:2 (UUID {uuid(2)}, CUDA_VISIBLE_DEVICES 2) on ")
                slow_evidence = ("GEMM 350 TFLOP/s below 0.8 x the median 700 of 4 H100 SXM GPUs; clocks held back by "
                                 "sw_power_cap,hw_thermal_slowdown")
                for line in (xid_line, slow_line, "errors: Xid 79", slow_evidence):
                    self.assertIn(line, proc.stdout)
                self.assertNotIn("rank 1: not admitted", proc.stdout)
                self.check_gpus_table(out)
                self.check_status_and_report_name_them(out, xid_line, slow_line, slow_evidence)

    def check_gpus_table(self, out):
        gpus = self.gpus_table(out)
        self.assertEqual(gpus["rank"], [0, 1, 2, 3])
        self.assertEqual(gpus["admitted"], [0, 1, 0, 1])
        self.assertEqual(gpus["uuid"], [uuid(i) for i in range(4)])
        self.assertEqual(gpus["visible_id"], ["0", "1", "2", "3"])
        self.assertEqual(gpus["model"], ["H100 SXM"] * 4)
        self.assertEqual(gpus["precision"], ["bf16"] * 4)
        self.assertEqual(gpus["gemm_tflops"], [700.0, 700.0, 350.0, 700.0])
        self.assertEqual(gpus["copy_gbps"], [2000.0, 2000.0, 1000.0, 2000.0])
        self.assertEqual(gpus["floor_tflops"], [560.0] * 4)
        self.assertEqual(gpus["sm_clock_mhz"], [1980, 1980, 990, 1980])
        self.assertEqual(gpus["sm_clock_max_mhz"], [1980] * 4)
        self.assertEqual(gpus["throttle"], ["sw_power_cap", "sw_power_cap", "sw_power_cap,hw_thermal_slowdown",
                                            "sw_power_cap"])
        self.assertTrue(gpus["errors"][0].startswith("Xid 79"), gpus["errors"])
        self.assertEqual(gpus["errors"][1:], ["", "", ""])
        self.assertTrue(gpus["reason"][2].startswith("GEMM 350 TFLOP/s below"), gpus["reason"])
        self.assertTrue(all(s > 0 for s in gpus["check_seconds"]), gpus["check_seconds"])
        import xarray
        with xarray.open_dataset(out, engine="h5netcdf", group="gpus") as ds:
            self.assertEqual(dict(ds.sizes), {"gpu": 4})
            self.assertEqual(ds["admitted"].values.tolist(), [0, 1, 0, 1])
            self.assertEqual(ds["gemm_tflops"].values.tolist(), [700.0, 700.0, 350.0, 700.0])
            self.assertEqual(ds["uuid"].values.tolist(), [uuid(i) for i in range(4)])

    def check_status_and_report_name_them(self, out, xid_line, slow_line, slow_evidence):
        status = run(["status", out])
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        for line in (xid_line, slow_line):
            self.assertIn("GPU out of the job: " + line, status.stdout)
        self.assertIn(slow_evidence, status.stdout)
        quarantined = json.loads(run(["status", out, "--json"]).stdout)["quarantined"]
        self.assertEqual(len(quarantined), 2, quarantined)
        self.assertTrue(quarantined[0].startswith(xid_line) and "Xid 79" in quarantined[0], quarantined)
        self.assertTrue(quarantined[1].startswith(slow_line) and slow_evidence in quarantined[1], quarantined)
        report = run(["report", out, "--png", out + ".png"])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        for line in (xid_line, slow_line):
            self.assertIn("report: GPU out of the job: " + line, report.stdout)

    def test_a_lone_gpu_is_held_to_its_spec(self):
        proc, out = self.run_job(1, "throttle 0 0x8\n", "0=2", gpus=1)
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("rank 0: not admitted: GPU cuda:0 (UUID " + uuid(0), proc.stdout)
        self.assertIn("GEMM 350 TFLOP/s below 0.5 x the H100 SXM spec peak 989 (no peer of its model); clocks held "
                      "back by hw_slowdown", proc.stdout)
        self.assertIn("every GPU of this job was refused by the admission check (named above), so no task ran",
                      proc.stdout + proc.stderr)
        self.assertIn("12 not started of 12 tasks", proc.stdout)
        self.assertEqual(self.gpus_table(out)["admitted"], [0])
        # A lower floor admits it; `off` skips the check and writes no /gpus.
        proc, out = self.run_job(1, "throttle 0 0x8\n", "0=2", gpus=1, args=("--set", "gpu_admission.spec_fraction=0.3"))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.gpus_table(out)["admitted"], [1])
        self.assertEqual(self.gpus_table(out)["floor_tflops"], [0.3 * 989])
        proc, out = self.run_job(1, "throttle 0 0x8\n", "0=2", gpus=1, extra="gpu_admission: off")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn("not admitted", proc.stdout + proc.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertNotIn("gpus", f)

    def test_fp64_jobs_check_in_fp64_and_a_group_is_named_not_left_out(self):
        proc, out = self.run_job(2, "", "1=2", extra="gpu_admission: {precision: fp64}\ngpus_per_task: 2")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
        gpus = self.gpus_table(out)
        self.assertEqual(gpus["precision"], ["fp64", "fp64"])
        self.assertEqual(gpus["gemm_tflops"], [50.0, 25.0])
        self.assertEqual(gpus["admitted"], [1, 1])
        self.assertTrue(gpus["reason"][1].startswith("would be refused (not enforced with gpus_per_task > 1): GEMM 25"),
                        gpus["reason"])


    def test_gpus_rows_through_single_layout_array_merge_and_resume(self):
        # The master's /gpus is written by three other paths than a one-element shards run: the
        # single layout, `merge` of array elements (each element's rows, told apart by
        # array_index) and a --resume (the resumed run's own checks). Device 0 reports Xid 79.
        with self.subTest(layout="single"):
            proc, out = self.run_job(4, "xid_every_poll 79\n", "", args=("--set", "output.layout=single"))
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
            gpus = self.gpus_table(out)
            self.assertEqual((gpus["rank"], gpus["admitted"]), ([0, 1, 2, 3], [0, 1, 1, 1]))

        with self.subTest(layout="array elements, merged"):
            work = scratch_dir()
            for index in (0, 1):
                proc, out = self.run_job(2, "xid_every_poll 79\n", "", work=work,
                                         args=("-q", "--array-index", str(index), "--array-count", "2"))
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
            merged = run(["merge", out])
            self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
            gpus = self.gpus_table(out)
            self.assertEqual(sorted(zip(gpus["array_index"], gpus["rank"], gpus["admitted"])),
                             [(0, 0, 0), (0, 1, 1), (1, 0, 0), (1, 1, 1)])

        with self.subTest(layout="resumed"):
            # Task x=5 fails until its marker exists; the resume reruns it after its own checks.
            work = scratch_dir()
            marker = os.path.join(work, "fixed")
            failing = PROGRAM.replace("import json, os\n", "import json, os, sys\n"
                                      f"if os.environ['SHARDRUN_PARAM_X'] == '5' and not os.path.exists({marker!r}):\n"
                                      "    sys.exit(1)\n")
            proc, out = self.run_job(2, "", "1=2", work=work, program_text=failing)
            self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
            open(marker, "w").close()
            proc, out = self.run_job(2, "xid_every_poll 79\n", "", work=work, program_text=failing,
                                     args=("--resume",))
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
            gpus = self.gpus_table(out)
            # The resumed run's checks: rank 0's Xid 79, rank 1 no longer slowed.
            self.assertEqual((gpus["rank"], gpus["admitted"]), ([0, 1], [0, 1]))
            self.assertEqual(gpus["gemm_tflops"][1], 700.0)


class GpuAdmissionFieldTest(unittest.TestCase):
    """Bad input: one line naming file:line:col, the field and what is allowed; exit 2; nothing written."""

    def check_refused(self, extra, expected):
        work = scratch_dir()
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.format(schedule="dynamic", out=out, program="/bin/true", extra=extra))
        proc = run(["run", job])
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(expected, lines[0])
        self.assertIn("job.yaml:", lines[0])
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(out + ".shards"))

    def test_bad_values_are_refused_with_one_line(self):
        self.check_refused("gpu_admission: {min_fraction: 1.5}",
                           "gpu_admission.min_fraction: '1.5' is not allowed; a number above 0 and at most 1")
        self.check_refused("gpu_admission: {spec_fraction: half}",
                           "gpu_admission.spec_fraction: 'half' is not allowed; a number above 0 and at most 1")
        self.check_refused("gpu_admission: {precision: fp16}", "gpu_admission.precision: 'fp16' is not allowed")
        self.check_refused("gpu_admission: {precison: bf16}", "gpu_admission.precison: unknown key (did you mean 'precision'?)")
        self.check_refused("gpu_admission: sometimes", "gpu_admission: must be off, on, or {min_fraction")


if __name__ == "__main__":
    unittest.main(verbosity=2)
