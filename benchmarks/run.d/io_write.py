"""HDF5 write against a raw POSIX write of the same bytes to the same file system, all committing
(fsync) every 64 MiB; the master's consolidation of the shards against a raw POSIX copy of the
segment files (read + write, fsync every 64 MiB). io_write_bandwidth_bench interleaves raw,
layout shards and layout single in its own rounds (the copy and the consolidation follow the
shards writer in each) and prints medians of per-round ratios; this reads its lines. It runs on
the --work disk (ext4) and on tmpfs (file_systems.py). Targets (issue 25, point 2): shards >= 0.9
x raw write; consolidation >= 0.8 x raw copy (its note gives it against the raw write too)."""
import re

from common import Row, mpi_env, run
from file_systems import remove_dirs, scratch_dirs

LINES = {"raw": r"raw POSIX write \(anchor\)\s+([\d.]+) MiB/s",
         "copy": r"raw POSIX copy \(anchor\)\s+([\d.]+) MiB/s",
         "shards": r"layout shards\s+([\d.]+) MiB/s \(median\)\s+([\d.]+) x raw",
         "master": r"shards master \(consolidate\)\s+([\d.]+) MiB/s \(median\)\s+([\d.]+) x raw copy \(([^)]*)\)"
                   r"\s+([\d.]+) x raw write\s+CPU ([\d.]+) s/GiB",
         "single": r"layout single \(1 rank\)\s+([\d.]+) MiB/s \(median\)\s+([\d.]+) x raw"}
CPU = r"{}.*CPU ([\d.]+) s/GiB"


def parse(out):
    found = {}
    for key, pattern in LINES.items():
        match = re.search(pattern, out)
        if not match:
            raise RuntimeError(f"no '{key}' line in io_write_bandwidth_bench's output")
        found[key] = [float(g) if re.fullmatch(r"[\d.]+", g) else g.split(";")[0] for g in match.groups()]
    for key, label in (("raw", r"raw POSIX write"), ("copy", r"raw POSIX copy"), ("shards", r"layout shards")):
        found[key + "_cpu"] = float(re.search(CPU.format(label), out).group(1))
    return found


def fs_rows(tasks, fs, found):
    raw, copy = f"{found['raw'][0]:.0f} MiB/s", f"{found['copy'][0]:.0f} MiB/s"
    master = found["master"]
    rows = []
    for key, title, anchor, target in (
            ("shards", f"HDF5 write, layout shards ({tasks} x 256 KiB, {fs}) vs raw write", raw, 0.9),
            ("single", f"HDF5 write, layout single ({tasks} x 256 KiB, {fs}) vs raw write", raw, None),
            ("master", f"HDF5 master consolidation ({tasks} x 256 KiB, {fs}) vs raw copy", copy, 0.8)):
        mib, ratio = found[key][0], found[key][1]
        note = ""
        if key == "master":
            note = (f"{master[3]:.2f} x the raw write; per-round {master[2]}; CPU {master[4]:.2f} s/GiB "
                    f"(raw copy {found['copy_cpu']:.2f}, raw write {found['raw_cpu']:.2f})")
        elif key == "shards":
            note = f"CPU {found['shards_cpu']:.2f} s/GiB (raw write {found['raw_cpu']:.2f})"
        rows.append(Row(title, ours=f"{mib:.0f} MiB/s", anchor=anchor, ratio=ratio,
                        target=f">= {target:g}" if target else "-", met=(ratio >= target) if target else None,
                        note=note, figures={"mib_s": mib, "anchor_mib_s": float(anchor.split()[0]), "fs": fs}))
    return rows


def rows(ctx):
    binary = ctx.binary("benchmarks/io/io_write_bandwidth_bench")
    tasks = 400 if ctx.quick else 2000
    dirs = scratch_dirs(ctx, "io")
    out_rows = []
    try:
        for fs, folder in dirs:
            ctx.log(f"  HDF5 write, {tasks} tasks x 256 KiB, on {fs}")
            _, out = run([binary, str(tasks), "256", folder, str(ctx.rounds)], env=mpi_env(), timeout=900)
            out_rows += fs_rows(tasks, fs, parse(out))
    finally:
        remove_dirs(dirs)
    return out_rows
