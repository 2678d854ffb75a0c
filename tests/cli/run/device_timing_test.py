"""Issue 11, points 11 and 12: `device` swept per task, and the kernels' own `seconds`.

- A sweep over device [cpu, cuda] on a build or rank without a GPU: the cpu tasks run on the
  CPU and succeed, the cuda tasks fail with one clear message and are never recorded ok (exit 1);
  at 1 and 2 ranks. --set 'sweep.device=[cpu]' runs the CPU half alone (exit 0).
- Every built-in kernel kind records `seconds` > 0 and finite, inside its task's own span.
- examples/gpu-vs-cpu.yaml and gpu-vs-cpu-blur.yaml run (CPU part, sizes shrunk) and
  `shardrun table --pivot device` prints operation, CPU s, GPU s and their ratio cpu/cuda from the stored values.
Bad device values are exit-2 cases of the bad-input catalogue (tests/bad-inputs)."""
import csv
import functools
import io
import json
import math
import os
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module, write_job, task_labels

h5py = h5py_module()
OK = 1  # io::TaskStatus::ok as stored in /tasks/status

GEMM_SWEEP = """\
    name: device-sweep
    task: gemm
    params: {repeats: 1, seed: 1}
    sweep:
      n: [16, 32]
      device: [cpu, cuda]
    retries: 2
    output: {path: out.h5}
    """


def read_tasks(path):
    with h5py.File(path, "r") as f:
        return {
            "status": f["tasks/status"][:].tolist(),
            "attempts": f["tasks/attempts"][:].tolist(),
            "device": task_labels(f, "device"),
            "param_device": [d.decode() if isinstance(d, bytes) else str(d) for d in f["params/device"][:]],
            "n": f["params/n"][:].tolist() if "params/n" in f else None,
            "seconds": f["results/seconds"][:].tolist() if "results/seconds" in f else None,
            "start": f["tasks/start"][:].tolist(),
            "end": f["tasks/end"][:].tolist(),
        }


@functools.lru_cache(maxsize=None)
def has_gpu():
    proc = run(["info", "--json"])
    return proc.returncode == 0 and '"cuda:' in proc.stdout


class DeviceSweep(unittest.TestCase):
    """On a machine with a GPU (scripts/gpu-check) the cuda tasks must run there instead."""

    def check_cuda_tasks_fail(self, np):
        work = scratch_dir()
        job = write_job(work, GEMM_SWEEP)

        proc = run(["run", job, "--progress", "plain"], np=np, cwd=work)

        if has_gpu():
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            tasks = read_tasks(f"{work}/out.h5")
            for status, wanted, ran_on in zip(tasks["status"], tasks["param_device"], tasks["device"]):
                self.assertEqual(status, OK)
                self.assertEqual(ran_on.split(":")[0], wanted)
            return
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        # The summary names each failed task with its one line.
        self.assertIn("failed #1: exit 1: params.device: cuda, but this rank has no CUDA device", proc.stdout)
        self.assertIn("it is not run on the CPU instead", proc.stdout)
        tasks = read_tasks(f"{work}/out.h5")
        self.assertEqual(sorted(set(tasks["param_device"])), ["cpu", "cuda"])
        for status, attempts, wanted, ran_on in zip(tasks["status"], tasks["attempts"], tasks["param_device"],
                                                    tasks["device"]):
            if wanted == "cpu":
                self.assertEqual((status, ran_on), (OK, "cpu"))
            else:
                self.assertNotEqual(status, OK)  # never recorded ok, never run on the CPU instead
                self.assertEqual(attempts, 1)    # a retry on the same rank would find no GPU either

    def test_cuda_tasks_fail_one_rank(self):
        self.check_cuda_tasks_fail(None)

    def test_cuda_tasks_fail_two_ranks(self):
        self.check_cuda_tasks_fail(2)

    def test_cuda_tasks_fail_in_a_group_of_two(self):
        work = scratch_dir()
        job = write_job(work, GEMM_SWEEP.replace("retries: 2", "retries: 1\n    gpus_per_task: 2"))

        proc = run(["run", job, "-q"], np=2, cwd=work)

        self.assertEqual(proc.returncode, 0 if has_gpu() else 1, proc.stdout + proc.stderr)
        tasks = read_tasks(f"{work}/out.h5")
        for status, wanted in zip(tasks["status"], tasks["param_device"]):
            self.assertEqual(status == OK, wanted == "cpu" or has_gpu())

    def test_cpu_half_alone_succeeds(self):
        work = scratch_dir()
        job = write_job(work, GEMM_SWEEP)

        proc = run(["run", job, "-q", "--set", "sweep.device=[cpu]"], cwd=work)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        tasks = read_tasks(f"{work}/out.h5")
        self.assertEqual(tasks["status"], [OK, OK])
        self.assertEqual(tasks["device"], ["cpu", "cpu"])

    def test_exec_task_gets_the_device_as_a_param_and_a_cuda_one_does_not_start(self):
        work = scratch_dir()
        job = write_job(work, """\
            name: exec-device
            task: exec
            sweep:
              points: [{device: cpu, on_cpu: 1}, {device: cuda, on_cpu: 0}]
            exec:
              argv: [/bin/sh, -c, 'echo $SHARDRUN_PARAM_DEVICE >> started.log; echo "{{\\"on_cpu\\": {on_cpu}}}" > "$SHARDRUN_RESULT"']
              results: {on_cpu: int64}
            output: {path: out.h5}
            """)

        proc = run(["run", job, "-q"], cwd=work)

        gpu = has_gpu()
        self.assertEqual(proc.returncode, 0 if gpu else 1, proc.stdout + proc.stderr)
        tasks = read_tasks(f"{work}/out.h5")
        self.assertEqual(tasks["status"][0], OK)
        self.assertEqual(tasks["status"][1] == OK, gpu)
        with open(f"{work}/started.log") as log:
            # Without a GPU the cuda task's program never started.
            self.assertEqual(log.read().split(), ["cpu", "cuda"] if gpu else ["cpu"])
        with h5py.File(f"{work}/out.h5", "r") as f:
            self.assertEqual(int(f["results/on_cpu"][0]), 1)


# One small job per built-in kernel kind; every one records `seconds`.
KIND_JOBS = {
    "gemm": "params: {n: 64, repeats: 2}",
    "blur": "params: {height: 64, sigma: 1.5}\ndata: {items: 4, chunk: 2}",
    "heat2d": "params: {nx: 32, ny: 32, steps: 20}",
    "montecarlo": "params: {paths: 20000}",
    "embed": "params: {input_dim: 16, output_dim: 8}\ndata: {items: 8, chunk: 4}",
}


class KernelSeconds(unittest.TestCase):
    def test_every_kernel_kind_records_its_own_seconds(self):
        work = scratch_dir()
        for kind, extra in KIND_JOBS.items():
            with self.subTest(kind=kind):
                job = write_job(work, f"name: {kind}\ntask: {kind}\n{extra}\noutput: {{path: {kind}.h5}}\n",
                                name=f"{kind}.yaml")

                proc = run(["run", job, "-q"], cwd=work)

                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                with h5py.File(f"{work}/{kind}.h5", "r") as f:
                    seconds = f["results/seconds"][:].tolist()
                    self.assertEqual(f["results/seconds"].attrs["units"].decode()
                                     if isinstance(f["results/seconds"].attrs["units"], bytes)
                                     else f["results/seconds"].attrs["units"], "s")
                    spans = [e - s for s, e in zip(f["tasks/start"][:], f["tasks/end"][:])]
                self.assertTrue(seconds)
                for value, span in zip(seconds, spans):
                    self.assertTrue(math.isfinite(value) and value > 0, value)
                    # Timed inside the task, around the kernel call alone (not an assertion on speed):
                    # the task's span also holds making the input and writing the result.
                    self.assertLessEqual(value, span + 1e-3)


def run_example(test, work, job, overrides):
    out = f"{work}/{os.path.basename(job)}.h5"
    sets = [a for o in [*overrides, f"output.path={out}"] for a in ("--set", o)]
    proc = run(["run", os.path.join(SOURCE_DIR, "examples", job), "-q", *sets], cwd=work)
    return proc, out


def table_csv(test, out, *args):
    proc = run(["table", out, "--csv", *args])
    test.assertEqual(proc.returncode, 0, proc.stderr)
    return list(csv.DictReader(io.StringIO(proc.stdout)))


class GpuVsCpuExample(unittest.TestCase):
    def test_cpu_part_of_both_examples_runs(self):
        work = scratch_dir()
        for job, sizes in (("gpu-vs-cpu.yaml", "sweep.n=[64, 128]"), ("gpu-vs-cpu-blur.yaml", "sweep.height=[64, 128]")):
            with self.subTest(job=job):
                proc, out = run_example(self, work, job, ["sweep.device=[cpu]", sizes])

                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                rows = table_csv(self, out, "--pivot", "device")
                self.assertEqual(list(rows[0].keys())[-1], "cpu_seconds")
                self.assertEqual(len(rows), 2)
                self.assertTrue(all(float(r["cpu_seconds"]) > 0 for r in rows))

    def test_pivot_of_cpu_and_cuda(self):
        # Without a GPU: the CPU column, and `-` for the GPU time and the ratio.
        gpu = has_gpu()
        work = scratch_dir()
        proc, out = run_example(self, work, "gpu-vs-cpu.yaml", ["sweep.n=[64, 128]"])
        self.assertEqual(proc.returncode, 0 if gpu else 1, proc.stdout + proc.stderr)

        text = run(["table", out, "--pivot", "device"])

        self.assertEqual(text.returncode, 0, text.stderr)
        lines = text.stdout.splitlines()
        self.assertEqual(lines[0].split(), ["n", "cpu_seconds", "cuda_seconds", "cpu/cuda"])
        self.assertEqual(len(lines), 3)
        for line in lines[1:]:
            cells = line.split()
            self.assertGreater(float(cells[1]), 0)
            if gpu:
                self.assertAlmostEqual(float(cells[3]), float(cells[1]) / float(cells[2]), delta=1e-4 * float(cells[3]))
            else:
                self.assertEqual(cells[2:], ["-", "-"])

    def test_ratio_is_computed_from_the_stored_values(self):
        # Two device values that both run here (auto is this rank's device, the CPU): a real
        # two-column pivot whose ratio (slower / faster time: cpu/auto) the test recomputes from /results/seconds.
        work = scratch_dir()
        proc, out = run_example(self, work, "gpu-vs-cpu.yaml", ["sweep.n=[64, 96, 128]", "sweep.device=[cpu, auto]"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py.File(out, "r") as f:
            stored = {}
            for n, device, seconds in zip(f["params/n"][:], f["params/device"][:], f["results/seconds"][:]):
                stored[(int(n), device.decode() if isinstance(device, bytes) else device)] = float(seconds)

        rows = table_csv(self, out, "--pivot", "device", "--value", "seconds")

        self.assertEqual(list(rows[0].keys()), ["n", "cpu_seconds", "auto_seconds", "cpu/auto"])
        self.assertEqual([int(r["n"]) for r in rows], [64, 96, 128])
        for r in rows:
            n = int(r["n"])
            self.assertEqual(float(r["cpu_seconds"]), stored[(n, "cpu")])
            self.assertEqual(float(r["auto_seconds"]), stored[(n, "auto")])
            self.assertEqual(float(r["cpu/auto"]), stored[(n, "cpu")] / stored[(n, "auto")])
        records = json.loads(run(["table", out, "--pivot", "device", "--json"]).stdout)
        self.assertEqual([r["n"] for r in records], [64, 96, 128])
        by_speed = table_csv(self, out, "--pivot", "device", "--sort", "cpu/auto", "--desc", "--top", "1")
        self.assertEqual(float(by_speed[0]["cpu/auto"]), max(float(r["cpu/auto"]) for r in rows))
        only = table_csv(self, out, "--pivot", "device", "--where", "n>=96")
        self.assertEqual([int(r["n"]) for r in only], [96, 128])

    def test_pivot_usage_errors_are_one_line(self):
        work = scratch_dir()
        proc, out = run_example(self, work, "gpu-vs-cpu.yaml", ["sweep.n=[16]", "sweep.device=[cpu]"])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        cases = [
            (["--pivot", "devce"], "did you mean 'device'"),
            (["--pivot", "seconds"], "is not a param"),
            (["--pivot", "device", "--value", "device"], "is not a number column"),
            (["--value", "gflops"], "--value needs --pivot"),
        ]
        for args, needle in cases:
            with self.subTest(args=args):
                proc = run(["table", out, *args])

                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertEqual(proc.stdout, "")
                self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
                self.assertIn(needle, proc.stderr)

    def test_two_tasks_in_one_cell_are_refused(self):
        work = scratch_dir()
        job = write_job(work, """\
            name: twice
            task: gemm
            params: {n: 16, repeats: 1}
            sweep:
              device: [cpu, cpu]
            output: {path: out.h5}
            """)
        self.assertEqual(run(["run", job, "-q"], cwd=work).returncode, 0)

        proc = run(["table", f"{work}/out.h5", "--pivot", "device"])

        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("tasks 0 and 1 both have device=cpu; keep one with --where", proc.stderr)


if __name__ == "__main__":
    unittest.main()
