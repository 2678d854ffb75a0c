"""Master creation (issue 13, item 3; issue 25, point 2): `shardrun merge` building the master from
the segments of T no-op tasks, against a raw sequential copy of the same bytes (every segment and
params.h5, cat | dd conv=fsync). A complete one-element run consolidates its own master and drops
its segments (results stored once), so merge would have nothing to do; the job runs as an array of
two elements instead (each half under mpirun -np 2), whose shards stay until `merge` joins them:
merge's real use. Each round writes a fresh output, times the copy, then the merge (which removes
the segments it consolidated), on the --work disk (ext4) and on tmpfs (file_systems.py). The ratio
is the median over rounds of copy s / merge s; the note gives the CPU seconds of both. Target >= 0.8.
T = 1e5 and 1e6 (1e4 with --quick), interleaved with the file systems in every round."""
import glob
import os
import resource
import shutil

from common import Row, median, mpi_env, run, sci
from file_systems import remove_dirs, scratch_dirs

TARGET = 0.8


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd, **kw):
    """(wall s, CPU s of the command and its children)."""
    cpu = _children_cpu()
    wall, _ = run(cmd, **kw)
    return wall, _children_cpu() - cpu


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
    copy = _timed(["bash", "-c", 'cat "$@" | dd of="$0" bs=4M conv=fsync status=none', copy_target, *sources],
                  timeout=1800)
    os.remove(copy_target)
    merge = _timed([binary, "merge", out], timeout=1800)
    ctx.log(f"    T = {tasks}: merge {merge[0]:.2f} s (CPU {merge[1]:.2f}), raw copy {copy[0]:.2f} s "
            f"(CPU {copy[1]:.2f}; {len(sources)} files)")
    shutil.rmtree(work, ignore_errors=True)
    return merge, copy


def rows(ctx):
    binary = ctx.binary("shardrun")
    # Two sizes (issue 36, point 4): the cost is per row, so 1e5 and 1e6 show whether it scales.
    sizes = [10_000] if ctx.quick else [100_000, 1_000_000]
    dirs = scratch_dirs(ctx, "master")
    measured = {(tasks, fs): ([], []) for tasks in sizes for fs, _ in dirs}
    try:
        for _ in range(ctx.rounds):
            # The file systems interleaved: each round sees the same load on both.
            for tasks in sizes:
                for fs, folder in dirs:
                    ctx.log(f"  master creation, T = {tasks}, layout shards, an array of 2 elements, on {fs}")
                    merge, copy = _round(ctx, binary, tasks, os.path.join(folder, "round"))
                    measured[(tasks, fs)][0].append(merge)
                    measured[(tasks, fs)][1].append(copy)
    finally:
        remove_dirs(dirs)
    out = []
    for (tasks, fs), (merges, copies) in measured.items():
        ratio = median([c[0] / m[0] for c, m in zip(copies, merges)])
        cpu_ratio = median([c[1] / m[1] for c, m in zip(copies, merges)])
        out.append(Row(f"master creation (merge of 2 array elements) T={sci(tasks)}, {fs} vs raw sequential copy",
                       ours=f"{median([m[0] for m in merges]):.2f} s", anchor=f"{median([c[0] for c in copies]):.2f} s",
                       ratio=ratio, target=f">= {TARGET:g}", met=ratio >= TARGET,
                       note=f"CPU: merge {median([m[1] for m in merges]):.2f} s, copy {median([c[1] for c in copies]):.2f} s "
                            f"(ratio {cpu_ratio:.2f})",
                       figures={"merge_s": [m[0] for m in merges], "copy_s": [c[0] for c in copies],
                                "merge_cpu_s": [m[1] for m in merges], "copy_cpu_s": [c[1] for c in copies]}))
    return out
