"""A cloud element's cost and its cores (issue 34, point 1), against moto's S3 server on loopback (the
venv scripts/install-deps makes, SHARDRUN_CLOUDENV). Each element runs as the AWS Batch container would:
the command and variables of the job files `shardrun submit --to aws-batch` writes, the generated
entrypoint as shardrun-entrypoint on PATH, a fresh HOME and TMPDIR (tests/cloud/element_runner.py does
the same for the tests).
- overhead: one element of a small exec job (8 tasks of `true`, 1 rank) through the cloud route (job and
  workdir fetched from the bucket, results uploaded) against `mpirun --bind-to none -np 1 shardrun run`
  of the same element writing to the local disk; interleaved rounds, medians; no target, the row says
  the seconds one element costs more;
- cores: a CPU-bound task (6 x 1000^2 float64 matmul in NumPy, 600^2 with --quick; its BLAS sized by
  OPENBLAS_NUM_THREADS)
  inside the entrypoint (1 rank) against a plain `mpirun --bind-to none` run of the same job; the figure
  is the tasks' own seconds (each task times its matmuls), so the route's overhead is not in it;
  target >= 0.95 (plain / entrypoint). A third contender, plain `mpirun` with Open MPI's default
  binding (one core per rank at -np <= 2), shows what the entrypoint avoided."""
import json
import os
import shutil
import subprocess
import sys

from common import ROOT, Row, Skip, interleave, median, mpi_env, ratio_of_rounds, run

sys.path.insert(0, os.path.join(ROOT, "tests", "cloud"))
import cloud_servers  # noqa: E402

TARGET = 0.95
PYTHON = "/usr/bin/python3"  # Debian's, with NumPy
MATMUL = ("import os, time, numpy; a = numpy.random.default_rng(0).random((SIZE, SIZE)); t = time.perf_counter(); "
          "[a @ a for _ in range(6)]; s = time.perf_counter() - t; "
          "open(os.environ['BENCH_SECONDS'], 'a').write(str(s) + chr(10))")


def _job(folder, argv, tasks, url):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "job.yaml"), "w") as f:
        f.write(f"name: bench\ntask: exec\nsweep: {{x: {{range: [0, {tasks}, 1]}}}}\noutput: {{path: {url}}}\n"
                f"exec:\n  argv: {json.dumps(argv)}\n")
    return os.path.join(folder, "job.yaml")


class CloudElement:
    """Submits the job to a fresh bucket prefix (not timed) and runs its element 0 as a container would (timed)."""

    def __init__(self, ctx, store, binary):
        self.ctx, self.store, self.binary, self.n = ctx, store, binary, 0

    def __call__(self, argv, tasks, extra_env):
        self.n += 1
        project = self.ctx.scratch(f"cloud_cores_project_{self.n}")
        _job(project, argv, tasks, self.store.url(f"runs/r{self.n}.h5"))
        env = mpi_env({**self.store.env()})
        # The container is given this machine's CPUs (--vcpus, as a GPU job's 8 would be): its threads follow.
        run([self.binary, "submit", "job.yaml", "--to", "aws-batch", "--array", "1", "--ranks-per-node", "1",
             "--vcpus", str(len(os.sched_getaffinity(0))), "--workdir", "."], env=env, cwd=project)
        files = os.path.join(project, f"r{self.n}.h5.submit", "aws-batch")
        with open(os.path.join(files, "array-job.json")) as f:
            container = json.load(f)["containerProperties"]
        machine = self.ctx.scratch(f"cloud_cores_machine_{self.n}")
        bin_dir = os.path.join(machine, "usr-local-bin")
        for sub in ("home", "tmp", "usr-local-bin"):
            os.makedirs(os.path.join(machine, sub))
        os.symlink(self.binary, os.path.join(bin_dir, "shardrun"))
        shutil.copy(os.path.join(files, "entrypoint"), os.path.join(bin_dir, "shardrun-entrypoint"))
        os.chmod(os.path.join(bin_dir, "shardrun-entrypoint"), 0o755)
        variables = {e["name"]: e["value"] for e in container["environment"]}
        variables.update({**self.store.env(), **extra_env}, HOME=os.path.join(machine, "home"), TMPDIR=os.path.join(machine, "tmp"),
                         PATH=bin_dir + ":/usr/bin:/bin", AWS_BATCH_JOB_ID="b3nch:0", AWS_BATCH_JOB_ARRAY_INDEX="0",
                         AWS_BATCH_JOB_ARRAY_SIZE="1", AWS_BATCH_JOB_ATTEMPT="1", OMPI_ALLOW_RUN_AS_ROOT="1",
                         OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        seconds, _ = run(container["command"], env=variables, cwd=machine, timeout=900)  # env -i style
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(machine, ignore_errors=True)
        return seconds


def _local(ctx, binary, argv, tasks, extra_env, binding):
    folder = ctx.scratch("cloud_cores_local")
    job = _job(folder, argv, tasks, os.path.join(folder, "out.h5"))
    seconds, _ = run(["mpirun", *binding, "-np", "1", binary, "run", job, "-q"], env=mpi_env(extra_env), timeout=900)
    shutil.rmtree(folder, ignore_errors=True)
    return seconds


def _task_seconds(ctx, name, contender):
    """A contender whose figure is the sum of its tasks' own seconds (each task appends its time)."""
    def go():
        path = os.path.join(ctx.work, f"{name}.seconds")
        if os.path.exists(path):
            os.remove(path)
        contender({"BENCH_SECONDS": path})
        with open(path) as f:
            return sum(float(line) for line in f if line.strip())
    return go


def rows(ctx):
    if not os.path.exists(os.path.join(cloud_servers.CLOUDENV, "bin", "moto_server")) or not shutil.which("rclone"):
        raise Skip(f"needs rclone and {cloud_servers.CLOUDENV} (scripts/install-deps)")
    if subprocess.run([PYTHON, "-c", "import numpy"], capture_output=True).returncode != 0:
        raise Skip(f"needs NumPy in {PYTHON}")
    binary = ctx.binary("shardrun")
    work = ctx.scratch("cloud_cores")
    store = cloud_servers.S3(work, bucket="bench")
    cloud = CloudElement(ctx, store, binary)
    rounds = max(ctx.rounds, 5)
    try:
        tiny = ["true"]
        overhead = interleave({"cloud": lambda: cloud(tiny, 8, {}),
                               "local": lambda: _local(ctx, binary, tiny, 8, {}, ["--bind-to", "none"])}, rounds, ctx.log)
        # One task of 6 n x n products: 4-5 s on one core of the loaded 2-core development VM at n = 1000.
        n, tasks = (600 if ctx.quick else 1000), 1
        matmul = [PYTHON, "-c", MATMUL.replace("SIZE", str(n))]
        cores = interleave({
            "entrypoint": _task_seconds(ctx, "entrypoint", lambda env: cloud(matmul, tasks, env)),
            "unbound": _task_seconds(ctx, "unbound", lambda env: _local(ctx, binary, matmul, tasks, env, ["--bind-to", "none"])),
            "pinned": _task_seconds(ctx, "pinned", lambda env: _local(ctx, binary, matmul, tasks, env, []))}, rounds, ctx.log)
    finally:
        store.stop()
        shutil.rmtree(work, ignore_errors=True)
    out = []
    row = Row("cloud element overhead: 8 x `true`, 1 rank, entrypoint + S3 (moto) vs local mpirun", target="- (seconds added)")
    if isinstance(overhead["cloud"], str) or isinstance(overhead["local"], str):
        out.append(row.error(overhead["cloud"] if isinstance(overhead["cloud"], str) else overhead["local"]))
    else:
        row.ours, row.anchor = f"{median(overhead['cloud']):.2f} s", f"{median(overhead['local']):.2f} s"
        row.ratio = ratio_of_rounds(overhead["cloud"], overhead["local"])
        row.note = f"the cloud route adds {median(overhead['cloud']) - median(overhead['local']):.2f} s per element"
        row.figures = {"cloud_s": overhead["cloud"], "local_s": overhead["local"]}
        out.append(row)
    row = Row(f"cloud cores: {tasks} task of 6 x {n}^2 matmul (NumPy), task seconds, entrypoint vs mpirun --bind-to none",
              target=f">= {TARGET:g} (plain / entrypoint)")
    if any(isinstance(cores[name], str) for name in cores):
        out.append(row.error(next(cores[name] for name in cores if isinstance(cores[name], str))))
    else:
        row.ours, row.anchor = f"{median(cores['entrypoint']):.2f} s", f"{median(cores['unbound']):.2f} s"
        row.ratio = ratio_of_rounds(cores["entrypoint"], cores["unbound"])
        row.met = row.ratio >= TARGET
        row.note = (f"Open MPI's default binding (pinned to one core): {median(cores['pinned']):.2f} s, "
                    f"entrypoint / pinned speed {ratio_of_rounds(cores['entrypoint'], cores['pinned']):.2f}")
        row.figures = {"entrypoint_s": cores["entrypoint"], "unbound_s": cores["unbound"], "pinned_s": cores["pinned"]}
        out.append(row)
    return out
