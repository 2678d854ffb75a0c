"""The CUDA backend is loaded on first use only (issue 13): the shardrun binary needs no CUDA
library, a CPU run maps none, and `device: cuda` without the backend library fails in one line."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.environ.get("SHARDRUN_SOURCE_DIR", "."), "tests", "cli"))
from harness import SHARDRUN, clean_env, run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

CUDA_LIBRARIES = ("libcudart", "libcublas", "libnccl", "libshardrun_cuda")
MISSING = "/nonexistent/libshardrun_cuda.so"


def built_with_cuda():
    """Whether this binary was built with the CUDA backend (`shardrun info --json`: build.cuda)."""
    proc = run(["info", "--json"])
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    return json.loads(proc.stdout)["build"]["cuda"]


def needed_entries(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def loaded_libraries(args, env=None):
    """The libraries the dynamic loader opened while shardrun ran `args` (LD_DEBUG=files), and the run."""
    proc = run(args, env={**(env or {}), "LD_DEBUG": "files"})
    opened = [line.split("file=", 1)[1].split()[0] for line in proc.stderr.splitlines() if "file=" in line]
    return opened, proc


def job_text(device, output):
    return f"task: noop\nschedule: static\nsweep: {{a: [1, 2]}}\ndevice: {device}\noutput: {{path: {output}}}\n"


class CudaBackendCliTest(unittest.TestCase):
    def test_binary_needs_no_cuda_library(self):
        needed = needed_entries(SHARDRUN)

        self.assertTrue(needed, "readelf found no NEEDED entries at all")
        self.assertEqual([n for n in needed if n.startswith(CUDA_LIBRARIES)], [], needed)

    def test_cpu_run_opens_no_cuda_library(self):
        work = scratch_dir()
        devices = ["cpu"] if os.path.exists("/dev/nvidiactl") else ["cpu", "auto"]
        for device in devices:
            output = os.path.join(work, f"{device}.h5")
            job = write_job(work, job_text(device, output), f"{device}.yaml")

            opened, proc = loaded_libraries(["run", job, "--progress", "quiet"])

            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            self.assertTrue(os.path.exists(output))
            self.assertEqual([f for f in opened if os.path.basename(f).startswith(CUDA_LIBRARIES)], [], device)

    def test_version_starts_without_the_backend(self):
        proc = run(["--version"], env={"SHARDRUN_CUDA_BACKEND": MISSING})

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")

    def test_device_cuda_without_the_backend_is_one_line(self):
        work = scratch_dir()
        output = os.path.join(work, "cuda.h5")
        job = write_job(work, job_text("cuda", output), "cuda.yaml")

        proc = run(["run", job, "--progress", "quiet"], env={"SHARDRUN_CUDA_BACKEND": MISSING})

        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("device: cuda", lines[0])
        if built_with_cuda():
            self.assertIn("needs the CUDA backend libshardrun_cuda.so: " + MISSING, lines[0])
        else:
            self.assertIn("built without CUDA", lines[0])
        self.assertFalse(os.path.exists(output))

    def test_device_cuda_with_the_backend_but_no_gpu_is_one_line(self):
        if os.path.exists("/dev/nvidiactl"):
            self.skipTest("this machine has an NVIDIA driver: scripts/gpu-check covers device: cuda")
        work = scratch_dir()
        output = os.path.join(work, "cuda.h5")
        job = write_job(work, job_text("cuda", output), "cuda.yaml")

        proc = run(["run", job, "--progress", "quiet"])

        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("has no CUDA device", lines[0])
        self.assertNotIn("needs the CUDA backend", lines[0])
        self.assertFalse(os.path.exists(output))


if __name__ == "__main__":
    unittest.main()
