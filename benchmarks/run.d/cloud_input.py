"""An input in object storage read by `plan` (issue 34, point 5), against moto's S3 server on loopback
(from the venv scripts/install-deps makes, SHARDRUN_CLOUDENV). One 50 MiB HDF5 file (float32
[204800, 64]) is data.input; in interleaved rounds, medians:
- `plan` of the s3:// input (ranged reads of its metadata) against `plan` of a local copy;
- the same against downloading it whole first (`rclone copyto`, then `plan` of the copy: what
  plan did before);
- the bytes plan read through rclone (a wrapper, SHARDRUN_RCLONE, counts its stdout) against the
  file's size; target < 1 MiB (issue 34)."""
import os
import shutil
import sys

from common import ROOT, Row, Skip, interleave, median, ratio_of_rounds, run

sys.path.insert(0, os.path.join(ROOT, "tests", "cloud"))
import cloud_servers  # noqa: E402

ROWS = 204800
LIMIT = 1 << 20
JOB = "name: input-bench\ntask: exec\ndata: {{input: \"{input}\", chunk: 4096}}\nexec:\n  argv: [\"true\"]\n"
WRAPPER = """#!/bin/bash
exec 3>&1
rclone "$@" | tee /dev/fd/3 | wc -c >> {bytes}
exit ${{PIPESTATUS[0]}}
"""


def _write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def _bytes_read(path):
    with open(path) as f:
        return sum(int(line) for line in f if line.strip())


def rows(ctx):
    if not os.path.exists(os.path.join(cloud_servers.CLOUDENV, "bin", "moto_server")) or not shutil.which("rclone"):
        raise Skip(f"needs rclone and {cloud_servers.CLOUDENV} (scripts/install-deps)")
    binary = ctx.binary("shardrun")
    work = ctx.scratch("cloud_input")
    store = cloud_servers.S3(work, bucket="bench")
    try:
        import h5py
        import numpy
        local = os.path.join(work, "big.h5")
        with h5py.File(local, "w") as f:
            f["x"] = numpy.ones((ROWS, 64), dtype=numpy.float32)
        store.put(local, "in/big.h5")
        remote_job = _write(os.path.join(work, "remote.yaml"), JOB.format(input=store.url("in/big.h5") + ":/x"))
        local_job = _write(os.path.join(work, "local.yaml"), JOB.format(input=local + ":/x"))
        copy = os.path.join(work, "copy")
        copy_job = _write(os.path.join(work, "copy.yaml"), JOB.format(input=os.path.join(copy, "big.h5") + ":/x"))
        counts = os.path.join(work, "bytes")
        wrapper = _write(os.path.join(work, "rclone"), WRAPPER.format(bytes=counts), 0o755)
        env = dict(os.environ, **store.env(), SHARDRUN_RCLONE=wrapper, TMPDIR=ctx.scratch("cloud_input_tmp"))
        rclone_env = dict(env, RCLONE_S3_PROVIDER="Other", RCLONE_S3_ENV_AUTH="true", RCLONE_S3_ENDPOINT=store.server.url,
                          RCLONE_S3_NO_CHECK_BUCKET="true")
        rclone_env.pop("AWS_CA_BUNDLE", None)  # rclone 1.60 refuses it (shardrun passes it as --ca-cert)

        def plan(job):
            return run([binary, "plan", job, "--ranks", "2"], env=env)[0]

        def whole():
            shutil.rmtree(copy, ignore_errors=True)
            seconds = run(["rclone", "copyto", f":s3:{store.bucket}/in/big.h5", os.path.join(copy, "big.h5"), "-q"],
                          env=rclone_env)[0]
            return seconds + plan(copy_job)

        def ranged():
            if os.path.exists(counts):
                os.remove(counts)
            seconds = plan(remote_job)
            read.append(_bytes_read(counts))
            return seconds

        read = []
        times = interleave({"local": lambda: plan(local_job), "ranged": ranged, "whole": whole}, ctx.rounds, ctx.log)
        size = os.path.getsize(local)
    finally:
        store.stop()
        shutil.rmtree(work, ignore_errors=True)
    title = f"cloud_input: plan of a {size / 2**20:.0f} MiB s3:// input (moto), ranged reads"
    local_row = Row(f"{title} vs plan of a local copy", target="- (measured)")
    whole_row = Row(f"{title} vs downloading it whole first (before)", target="- (measured)")
    bytes_row = Row(f"{title}: bytes read vs the file's size", target=f"< {LIMIT} bytes (issue 34)")
    failed = next((t for t in times.values() if isinstance(t, str)), None)
    if failed is not None:
        return [local_row.error(failed), whole_row.error(failed), bytes_row.error(failed)]
    for row, anchor in ((local_row, "local"), (whole_row, "whole")):
        row.ours, row.anchor = f"{median(times['ranged']):.3f} s", f"{median(times[anchor]):.3f} s"
        row.ratio = ratio_of_rounds(times["ranged"], times[anchor])
        row.figures = {"ranged_s": times["ranged"], f"{anchor}_s": times[anchor]}
    bytes_row.ours, bytes_row.anchor = f"{max(read)} B", f"{size} B"
    bytes_row.ratio = max(read) / size
    bytes_row.met = max(read) < LIMIT
    bytes_row.figures = {"bytes": read, "size": size}
    return [local_row, whole_row, bytes_row]
