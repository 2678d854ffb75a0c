"""Results in object storage (issue 22, point 1), against moto's S3 server on loopback (from the venv
scripts/install-deps makes, SHARDRUN_CLOUDENV):
- rclone's cost per upload: one `rclone copyto` of one 64 KiB object (a small segment), the call
  shardrun makes, with the variables shardrun maps (endpoint, env_auth, no bucket check); the median
  of 10 calls, no target (it decides the batching: README, "Results in object storage");
- a 1,000-task job (montecarlo, 2 ranks) with output.path s3://... against the same job writing to
  the local disk, interleaved rounds, medians; target local/S3 >= 0.8."""
import os
import shutil
import sys

from common import ROOT, Row, Skip, interleave, median, mpi_env, ratio_of_rounds, run

sys.path.insert(0, os.path.join(ROOT, "tests", "cloud"))
import cloud_servers  # noqa: E402

TARGET = 0.8
TASKS = 1000


def _job(work, paths):
    path = os.path.join(work, "job.yaml")
    with open(path, "w") as f:
        f.write(f"name: cloud-bench\ntask: montecarlo\ndevice: cpu\nparams: {{paths: {paths}}}\n"
                f"sweep: {{seed: {{range: [0, {TASKS}, 1]}}}}\n")
    return path


def _rclone_env(store):
    env = dict(os.environ, **store.env(), RCLONE_S3_PROVIDER="Other", RCLONE_S3_ENV_AUTH="true",
               RCLONE_S3_ENDPOINT=store.server.url, RCLONE_S3_NO_CHECK_BUCKET="true")
    env.pop("AWS_CA_BUNDLE", None)  # rclone 1.60 refuses it (shardrun passes it as --ca-cert)
    return env


def _upload_row(ctx, store, work):
    segment = os.path.join(work, "segment.h5")
    with open(segment, "wb") as f:
        f.write(os.urandom(64 << 10))
    env = _rclone_env(store)
    seconds = []
    for i in range(10):
        seconds.append(run(["rclone", "copyto", segment, f":s3:{store.bucket}/probe/{i:08d}.h5", "--no-check-dest",
                            "-q"], env=env)[0])
    ctx.log(f"    rclone copyto: {', '.join(f'{s:.3f}' for s in seconds)} s")
    return Row("cloud: rclone cost per upload (one call, one 64 KiB object, moto on loopback)",
               ours=f"{median(seconds):.3f} s", anchor="-", target="- (sets the batching)",
               figures={"seconds": seconds})


def rows(ctx):
    if not os.path.exists(os.path.join(cloud_servers.CLOUDENV, "bin", "moto_server")) or not shutil.which("rclone"):
        raise Skip(f"needs rclone and {cloud_servers.CLOUDENV} (scripts/install-deps)")
    binary = ctx.binary("shardrun")
    work = ctx.scratch("cloud_output")
    store = cloud_servers.S3(work, bucket="bench")
    try:
        upload = _upload_row(ctx, store, work)
        paths = 20000 if ctx.quick else 200000
        job = _job(work, paths)
        counter = iter(range(1000))

        def once(output):
            def go():
                n = next(counter)
                scratch = ctx.scratch(f"cloud_scratch_{n}")
                env = mpi_env({**store.env(), "SHARDRUN_SCRATCH": scratch})
                seconds, _ = run(["mpirun", "-np", "2", binary, "run", job, "-q", "--set",
                                  f"output.path={output(n)}"], env=env, timeout=900)
                shutil.rmtree(scratch, ignore_errors=True)
                return seconds
            return go

        times = interleave({"local": once(lambda n: os.path.join(work, f"local-{n}.h5")),
                            "s3": once(lambda n: f"s3://{store.bucket}/runs/r{n}.h5")}, ctx.rounds, ctx.log)
    finally:
        store.stop()
        shutil.rmtree(work, ignore_errors=True)
    row = Row(f"cloud: {TASKS}-task job (montecarlo {paths} paths, np 2), local disk vs output s3:// (moto)",
              target=f">= {TARGET:g} (local / S3)")
    if isinstance(times["local"], str) or isinstance(times["s3"], str):
        return [upload, row.error(times["s3"] if isinstance(times["s3"], str) else times["local"])]
    row.ours, row.anchor = f"{median(times['s3']):.2f} s", f"{median(times['local']):.2f} s"
    row.ratio = ratio_of_rounds(times["s3"], times["local"])
    row.met = row.ratio >= TARGET
    row.figures = {"s3_s": times["s3"], "local_s": times["local"]}
    return [upload, row]
