"""GPU admission (issue 38, point 1): the check's time per GPU, each rank's /gpus check_seconds,
and what it adds to a run: a job of 4 one-GPU ranks with the check against the same job with
`gpu_admission: off`, interleaved. On a machine with a GPU (nvidia-smi lists one) the real CUDA
backend and NVML run; elsewhere the stand-ins of the tests (tests/support/fake_cuda_backend, whose
device sleeps for the time its modelled GEMM and copy would take, and fake_nvml), which only a
CUDA build makes: a CPU build's row says so. The target is the issue's: <= 10 s per GPU."""
import os
import shutil
import subprocess

from common import Row, Skip, interleave, median, mpi_env, ratio_of_rounds, run

TARGET_S = 10.0
JOB = """name: admission
task: exec
device: cuda
sweep: {{x: {{range: [0, 8, 1]}}}}
output: {{path: {out}}}
exec: {{argv: [/bin/true]}}
{extra}
"""


def _gpus_here():
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(1 for line in listed.stdout.splitlines() if line.startswith("GPU ")) if listed.returncode == 0 else 0


def _environment(ctx):
    """(ranks, extra environment, which GPUs) for the run."""
    gpus = _gpus_here()
    if gpus > 0:
        return min(gpus, 4), {}, f"real, {min(gpus, 4)} GPU(s)"
    backend = os.path.join(ctx.build, "tests", "cli", "libfake_cuda_backend.so")
    nvml = os.path.join(ctx.build, "tests", "fake_nvml", "libnvidia-ml.so.1")
    if not os.path.exists(backend) or not os.path.exists(nvml):
        raise Skip(f"no GPU here and no stand-in CUDA backend in {ctx.build} (a CUDA build makes it: "
                   "cmake --build BUILD --target fake_cuda_backend fake_nvml)")
    return 4, {"SHARDRUN_CUDA_BACKEND": backend, "SHARDRUN_FAKE_GPUS": "4", "SHARDRUN_NVML_LIBRARY": nvml}, \
        "stand-in CUDA backend and NVML, 4 GPUs"


def _check_seconds(path):
    code = ("import h5py, sys; f = h5py.File(sys.argv[1], 'r'); "
            "print(' '.join(str(s) for s in f['gpus/check_seconds'][:]))")
    return [float(s) for s in run(["/usr/bin/python3", "-c", code, path])[1].split()]


def rows(ctx):
    ctx.log("  gpu_admission")
    row = Row("gpu_admission: check time per GPU (4 one-GPU ranks), and a run with it vs gpu_admission: off",
              target=f"check <= {TARGET_S:g} s per GPU")
    try:
        ranks, extra_env, which = _environment(ctx)
    except Skip as why:
        return [row.error(f"skipped: {why}")]
    binary = ctx.binary("shardrun")
    env = mpi_env(extra_env)
    checks = []

    def contender(extra, keep):
        def once():
            work = ctx.scratch("gpu_admission")
            job = os.path.join(work, "job.yaml")
            out = os.path.join(work, "out.h5")
            with open(job, "w") as f:
                f.write(JOB.format(out=out, extra=extra))
            seconds, _ = run(["mpirun", "-np", str(ranks), binary, "run", job, "-q"], env=env)
            if keep:
                checks.extend(_check_seconds(out))
            shutil.rmtree(work, ignore_errors=True)
            return seconds
        return once

    times = interleave({"on": contender("", True), "off": contender("gpu_admission: off", False)}, ctx.rounds, ctx.log)
    ours, anchor = times["on"], times["off"]
    if isinstance(ours, str) or isinstance(anchor, str):
        return [row.error(ours if isinstance(ours, str) else f"off: {anchor}")]
    per_gpu = median(checks)
    row.ours = f"check {per_gpu:.2f} s per GPU (max {max(checks):.2f}); run {median(ours):.2f} s"
    row.anchor = f"run {median(anchor):.2f} s without the check"
    row.ratio = ratio_of_rounds(ours, anchor)
    row.met = max(checks) <= TARGET_S
    row.note = which
    row.figures = {"check_s": checks, "run_on_s": ours, "run_off_s": anchor}
    return [row]
