"""Allreduce through shardrun's Communicator (MPI backend) against MPI_Allreduce, 2 ranks:
allreduce_vs_mpi interleaves the two in its own rounds over message sizes; the ratio is its
average-bus-bandwidth ratio (shardrun / raw), target >= 0.95 (benchmarks/README.md); the
note adds the per-size ratios. A second row is StallGuard's blocking allreduce, which a task's
group's collectives go through (issue 25, point 4): target >= 0.95 on average and at every
size >= 1 MiB."""
import re

from common import Row, mpi_env, run

TARGET = 0.95
LARGE = 1 << 20  # the guard's per-size target holds from this size up


def rows(ctx):
    binary = ctx.binary("benchmarks/collectives/allreduce_vs_mpi")
    max_bytes = 1 << 20 if ctx.quick else 64 << 20
    rounds = ctx.rounds if ctx.quick else max(ctx.rounds, 5)
    ctx.log(f"  allreduce, up to {max_bytes >> 20} MiB, {rounds} rounds")
    # As in the tests: vader's single-copy mechanism needs ptrace rights containers lack.
    env = mpi_env({"OMPI_MCA_btl_vader_single_copy_mechanism": "none"})
    _, out = run(["mpirun", "-np", "2", binary, str(max_bytes), str(rounds)], env=env, timeout=900)
    avg = re.search(r"avg busbw: raw ([\d.]+) GB/s, shardrun ([\d.]+) GB/s \(ratio ([\d.]+)\)", out)
    per_size = re.search(r"per-size ratios \(target >= [\d.]+\): median ([\d.]+), min ([\d.]+)", out)
    if not avg:
        raise RuntimeError("no 'avg busbw' line in allreduce_vs_mpi's output")
    raw, ours, ratio = (float(g) for g in avg.groups())
    row = Row(f"allreduce 16 B..{max_bytes >> 20} MiB, np 2 vs raw MPI_Allreduce (avg busbw)",
              ours=f"{ours:.3f} GB/s", anchor=f"{raw:.3f} GB/s", ratio=ratio, target=f">= {TARGET:g}",
              met=ratio >= TARGET)
    notes = []
    if per_size:
        notes.append(f"per-size ratio median {per_size.group(1)}, min {per_size.group(2)}")
    row.note = "; ".join(notes)
    # Every size's line, as the program printed it: which sizes a ratio comes from.
    lines = [line for line in out.splitlines() if re.match(r"\s+\d+\s+\d+\s", line)]
    row.figures = {"per_size": lines}
    return [row, guard_row(out, lines, max_bytes)]


def guard_row(out, lines, max_bytes):
    """StallGuard's blocking allreduce against the same MPI_Allreduce, from the same run."""
    row = Row(f"allreduce through StallGuard (a group's) 16 B..{max_bytes >> 20} MiB, np 2 vs raw MPI_Allreduce",
              target=f">= {TARGET:g}, and per size >= 1 MiB")
    guarded = re.search(r"guarded \(StallGuard[^)]*\): avg busbw ([\d.]+) GB/s \(ratio ([\d.]+)\), per-size ratios "
                        r"median ([\d.]+), min ([\d.]+)", out)
    if not guarded:
        return row.error("no 'guarded' line in allreduce_vs_mpi's output")
    # Columns: size, iters, raw busbw, shard busbw, ratio, best, guard busbw, guard ratio.
    large = [float(line.split()[7]) for line in lines if int(line.split()[0]) >= LARGE]
    raw = re.search(r"avg busbw: raw ([\d.]+) GB/s", out)
    row.ours, row.anchor = f"{float(guarded.group(1)):.3f} GB/s", f"{float(raw.group(1)):.3f} GB/s" if raw else ""
    row.ratio = float(guarded.group(2))
    row.met = row.ratio >= TARGET and all(r >= TARGET for r in large)
    row.note = f"per-size ratio median {guarded.group(3)}, min {guarded.group(4)}" + (
        f"; sizes >= 1 MiB: min {min(large):.3f} ({', '.join(f'{r:.3f}' for r in large)})" if large else "")
    return row
