"""Master creation (issue 13, item 3): `shardrun merge` building the master from the segments
of T no-op tasks, against a raw sequential copy of the same bytes (every segment and params.h5,
cat | dd conv=fsync). A complete one-element run consolidates its own master and drops its
segments (results stored once), so merge would have nothing to do; the job runs as an array of
two elements instead (each half under mpirun -np 2), whose shards stay until `merge` joins them:
merge's real use. Each round writes a fresh output, times the copy, then the merge (which removes
the segments it consolidated). The ratio is the median over rounds of copy s / merge s. Target
>= 0.8."""
import glob
import os
import shutil

from common import Row, median, mpi_env, run, sci

TARGET = 0.8


def _round(ctx, binary, tasks, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    job = os.path.join(work, "job.yaml")
    out = os.path.join(work, "out.h5")
    with open(job, "w") as f:
        f.write(f"name: master-creation\ntask: noop\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
                f"output: {{path: {out}, layout: shards}}\n")
    for element in (0, 1):
        run(["mpirun", "-np", "2", binary, "run", job, "-q", "--array-index", str(element), "--array-count", "2"],
            env=mpi_env(), timeout=1800)
    sources = sorted(glob.glob(os.path.join(out + ".shards", "**", "*.h5"), recursive=True))
    if not sources:
        raise RuntimeError("the array elements left no segments to merge")
    copy_target = os.path.join(work, "copy.bin")
    copy, _ = run(["bash", "-c", 'cat "$@" | dd of="$0" bs=4M conv=fsync status=none', copy_target, *sources],
                  timeout=1800)
    os.remove(copy_target)
    merge, _ = run([binary, "merge", out], timeout=1800)
    ctx.log(f"    T = {tasks}: merge {merge:.2f} s, raw copy {copy:.2f} s ({len(sources)} files)")
    return merge, copy


def rows(ctx):
    binary = ctx.binary("shardrun")
    tasks = 10_000 if ctx.quick else 1_000_000
    work = ctx.scratch("master")
    ctx.log(f"  master creation, T = {tasks}, layout shards, an array of 2 elements")
    merges, copies = [], []
    for _ in range(ctx.rounds):
        merge, copy = _round(ctx, binary, tasks, work)
        merges.append(merge)
        copies.append(copy)
    shutil.rmtree(work, ignore_errors=True)
    ratio = median([c / m for c, m in zip(copies, merges)])
    return [Row(f"master creation (merge of 2 array elements) T={sci(tasks)} vs raw sequential copy",
                ours=f"{median(merges):.2f} s", anchor=f"{median(copies):.2f} s", ratio=ratio,
                target=f">= {TARGET:g}", met=ratio >= TARGET, figures={"merge_s": merges, "copy_s": copies})]
