"""HDF5 write against a raw POSIX write of the same bytes to the same disk, both committing
(fsync) every 64 MiB: io_write_bandwidth_bench interleaves raw, layout shards and layout single
in its own rounds and prints medians; this reads its lines. Targets: shards >= 0.8 x raw
(benchmarks/README.md); the master's consolidation >= 0.8 x raw (issue 13, item 3, there
against a raw sequential copy; here against the raw write, which the bench measures)."""
import re

from common import Row, mpi_env, run

LINES = {"raw": r"raw POSIX write \(anchor\)\s+([\d.]+) MiB/s",
         "shards": r"layout shards\s+([\d.]+) MiB/s \(median\)\s+([\d.]+) x raw",
         "master": r"shards master \(consolidate\)\s+([\d.]+) MiB/s \(round 1\)\s+([\d.]+) x raw",
         "single": r"layout single \(1 rank\)\s+([\d.]+) MiB/s \(median\)\s+([\d.]+) x raw"}


def rows(ctx):
    binary = ctx.binary("benchmarks/io/io_write_bandwidth_bench")
    tasks = 400 if ctx.quick else 2000
    ctx.log(f"  HDF5 write, {tasks} tasks x 256 KiB")
    work = ctx.scratch("io")
    _, out = run([binary, str(tasks), "256", work, str(ctx.rounds)], env=mpi_env(), timeout=900)
    found = {}
    for key, pattern in LINES.items():
        match = re.search(pattern, out)
        if not match:
            raise RuntimeError(f"no '{key}' line in io_write_bandwidth_bench's output")
        found[key] = [float(g) for g in match.groups()]
    raw = f"{found['raw'][0]:.0f} MiB/s"
    specs = [("shards", f"HDF5 write, layout shards ({tasks} x 256 KiB) vs raw write", 0.8),
             ("single", f"HDF5 write, layout single ({tasks} x 256 KiB) vs raw write", None),
             ("master", "HDF5 master consolidation (round 1) vs raw write", 0.8)]
    out_rows = []
    for key, title, target in specs:
        mib, ratio = found[key]
        row = Row(title, ours=f"{mib:.0f} MiB/s", anchor=raw, ratio=ratio,
                  target=f">= {target:g}" if target else "-",
                  met=(ratio >= target) if target else None, figures={"mib_s": mib, "raw_mib_s": found["raw"][0]})
        out_rows.append(row)
    return out_rows
