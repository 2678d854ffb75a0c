"""Start-up (issue 13, item 2): a one-task job under mpirun -np 2 against an MPI hello world
(MPI_Init, MPI_Finalize) under the same mpirun; and `shardrun --version`'s wall time and peak
resident memory, whose targets are absolute (<= 0.03 s, <= 30 MB)."""
import os

from common import Row, interleave, median, mpi_env, ratio_of_rounds, run

HELLO = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("hello from rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
"""
JOB_TARGET = 1 / 1.15          # a one-task job <= 1.15 x the hello world
VERSION_S, VERSION_MB = 0.03, 30.0


def _hello(work):
    source, binary = os.path.join(work, "hello.c"), os.path.join(work, "hello")
    with open(source, "w") as f:
        f.write(HELLO)
    run(["mpicc", "-O2", "-o", binary, source])
    return binary


def _job_row(ctx, binary, work):
    hello = _hello(work)
    job = os.path.join(work, "one.yaml")
    with open(job, "w") as f:
        f.write(f"name: startup\ntask: noop\nsweep: {{i: {{range: [0, 1, 1]}}}}\n"
                f"output: {{path: {work}/out/one.h5}}\n")

    def one_task():
        run(["rm", "-rf", f"{work}/out"])
        return run(["mpirun", "-np", "2", binary, "run", job, "-q"], env=mpi_env())[0]

    rounds = ctx.rounds if ctx.quick else max(ctx.rounds, 5)   # short runs: more rounds steady the median
    times = interleave({"shardrun": one_task,
                        "hello": lambda: run(["mpirun", "-np", "2", hello], env=mpi_env())[0]},
                       rounds, ctx.log)
    row = Row("startup: one-task job vs MPI hello world (mpirun -np 2)", target=">= 0.87 (<= 1.15 x hello)")
    ours, anchor = times["shardrun"], times["hello"]
    if isinstance(ours, str) or isinstance(anchor, str):
        return row.error(ours if isinstance(ours, str) else f"hello: {anchor}")
    row.ours, row.anchor = f"{median(ours):.3f} s", f"{median(anchor):.3f} s"
    row.ratio = ratio_of_rounds(ours, anchor)
    row.met = row.ratio >= JOB_TARGET
    row.figures = {"ours_s": ours, "anchor_s": anchor}
    return row


def _version_row(ctx, binary):
    row = Row("startup: shardrun --version (wall, peak RSS)", anchor="-",
              target=f"<= {VERSION_S} s, <= {VERSION_MB:g} MB")
    walls, rss = [], []
    run([binary, "--version"], timeout=60)   # warm the page cache first
    for _ in range(ctx.rounds if ctx.quick else max(ctx.rounds, 5)):
        walls.append(run([binary, "--version"], timeout=60)[0])
        # /usr/bin/time reports on stderr; the peak resident set (KiB) is its last line.
        _, out = run(f"/usr/bin/time -f '%M' {binary} --version 2>&1 >/dev/null", shell=True, timeout=60)
        rss.append(int(out.strip().splitlines()[-1]) / 1024)
    row.ours = f"{median(walls):.3f} s, {median(rss):.1f} MB"
    row.met = median(walls) <= VERSION_S and median(rss) <= VERSION_MB
    row.figures = {"wall_s": walls, "rss_mb": rss}
    return row


def rows(ctx):
    ctx.log("  startup")
    binary = ctx.binary("shardrun")
    work = ctx.scratch("startup")
    out = []
    for make in (lambda: _job_row(ctx, binary, work), lambda: _version_row(ctx, binary)):
        try:
            out.append(make())
        except Exception as why:
            out.append(Row("startup").error(str(why)))
    return out
