"""Coordinator memory (issue 13, item 3): world rank 0's peak resident memory (VmHWM through
/usr/bin/time on rank 0 alone, as benchmarks/runner/coordinator_scale.sh measures it) for
`mpirun -np 2 shardrun run` of T no-op tasks, at T = 1e7 against T = 1e5. Target: RSS(1e7) <=
1.2 x RSS(1e5) + the results' own size (the /results and /params datasets on disk at 1e7).
The largest T is the largest that fits the time budget: 1e7 runs only when 1e6 took under
BUDGET / 10 seconds (time grows linearly in T); --quick compares 1e5 with 1e4."""
import os
import shutil

from common import Row, mpi_env, run, sci
from deps import SYSTEM_PYTHON

BUDGET = 300.0   # seconds the largest run may take

RANK0 = """#!/bin/sh
out=$1; shift
if [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then exec /usr/bin/time -f '%M' -o "$out" "$@"; fi
exec "$@"
"""

# Bytes on disk of every dataset under /results and /params: what must grow with T.
RESULTS_SIZE = """
import sys, h5py
total = 0
def add(name, obj):
    global total
    if isinstance(obj, h5py.Dataset):
        total += obj.id.get_storage_size()
with h5py.File(sys.argv[1], "r") as f:
    for group in ("results", "params"):
        if group in f:
            f[group].visititems(add)
print(total)
"""


def _measure(ctx, binary, work, tasks):
    """(rank 0 peak MiB, wall s, results MiB) of one run of `tasks` no-op tasks."""
    folder = os.path.join(work, str(tasks))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    job = os.path.join(folder, "job.yaml")
    with open(job, "w") as f:
        f.write(f"name: coordinator\ntask: noop\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
                f"output: {{path: {folder}/out.h5, layout: shards}}\n")
    rss = os.path.join(folder, "rank0.rss")
    seconds, _ = run(["mpirun", "-np", "2", os.path.join(work, "rank0.sh"), rss, binary, "run", job, "-q"],
                     env=mpi_env(), timeout=2 * BUDGET)
    with open(rss) as f:
        mib = int(f.read().split()[-1]) / 1024
    _, size = run([SYSTEM_PYTHON, "-c", RESULTS_SIZE, f"{folder}/out.h5"], timeout=600)
    shutil.rmtree(folder, ignore_errors=True)
    ctx.log(f"    T = {tasks}: rank 0 {mib:.1f} MiB, {seconds:.1f} s, results {int(size) / 2**20:.1f} MiB")
    return mib, seconds, int(size) / 2**20


def rows(ctx):
    binary = ctx.binary("shardrun")
    work = ctx.scratch("coordinator")
    with open(os.path.join(work, "rank0.sh"), "w") as f:
        f.write(RANK0)
    os.chmod(os.path.join(work, "rank0.sh"), 0o755)
    small = 10_000 if ctx.quick else 100_000
    ctx.log(f"  coordinator memory, T = {small} and up")
    anchor, _, _ = _measure(ctx, binary, work, small)
    big, (mib, seconds, results) = small * 10, _measure(ctx, binary, work, small * 10)
    if not ctx.quick and seconds < BUDGET / 10:
        big, (mib, seconds, results) = small * 100, _measure(ctx, binary, work, small * 100)
    allowed = 1.2 * anchor + results
    return [Row(f"coordinator: rank 0 peak RSS, T={sci(big)} vs T={sci(small)} (no-op, np 2)",
                ours=f"{mib:.1f} MiB", anchor=f"{anchor:.1f} MiB", ratio=mib / anchor,
                target=f"<= 1.2 x + results ({results:.0f} MiB) = {allowed:.0f} MiB", met=mib <= allowed,
                note="ratio: ours / anchor (lower is better)",
                figures={"rss_mib": mib, "anchor_rss_mib": anchor, "results_mib": results, "wall_s": seconds})]
