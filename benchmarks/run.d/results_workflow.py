"""The results workflow (issue 13, item 1): 1,000 tasks that each return 3 scalars and 64
floats, run and gathered into one HDF5 file. shardrun (exec tasks with declared results,
mpirun -np 2) against xargs -P 2 running the same program, then an h5py gather script."""
import os
import shutil

from common import HERE, Row, interleave, median, ratio_of_rounds, run, shardrun_job
from deps import SYSTEM_PYTHON

TARGET = 1.0   # issue 13: >= 1.0 x xargs + gather


def _task_program(folder):
    """One POSIX sh program for both contenders: writes the JSON object to $SHARDRUN_RESULT
    (shardrun) or to its second argument (xargs)."""
    floats = ", ".join(f"{0.015625 * k:.6f}" for k in range(64))
    path = os.path.join(folder, "task.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                f"printf '{{\"a\": %s, \"b\": 0.5, \"c\": 2.25, \"v\": [{floats}]}}\\n' \"$1\" "
                "> \"${SHARDRUN_RESULT:-$2}\"\n")
    os.chmod(path, 0o755)
    return path


def rows(ctx):
    tasks = 200 if ctx.quick else 1000
    ctx.log(f"  results workflow, {tasks} tasks")
    base = ctx.scratch("results")
    program = _task_program(base)
    gather = os.path.join(HERE, "gather.py")
    shardrun = shardrun_job(ctx, "results/shardrun", lambda work: (
        f"name: results\ntask: exec\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
        f"schedule: dynamic\noutput: {{path: {work}/out.h5}}\n"
        f"exec:\n  argv: [{program}, \"{{i}}\"]\n"
        "  results: {a: float64, b: float64, c: float64, v: [float32, 64]}\n"))

    def xargs_gather():
        work = ctx.scratch("results/xargs")
        os.makedirs(f"{work}/json")
        seconds, _ = run(f"seq 0 {tasks - 1} | xargs -P 2 -I{{}} {program} {{}} {work}/json/{{}}.json && "
                         f"{SYSTEM_PYTHON} {gather} {work}/json {tasks} {work}/out.h5", shell=True)
        shutil.rmtree(work, ignore_errors=True)
        return seconds

    times = interleave({"shardrun": shardrun, "xargs + h5py gather": xargs_gather}, ctx.rounds, ctx.log)
    ours, anchor = times["shardrun"], times["xargs + h5py gather"]
    row = Row(f"results workflow {tasks} x (3 scalars + 64 floats) vs xargs -P 2 + h5py gather",
              target=f">= {TARGET:g}")
    if isinstance(ours, str) or isinstance(anchor, str):
        return [row.error(ours if isinstance(ours, str) else f"anchor: {anchor}")]
    row.ours, row.anchor = f"{median(ours):.2f} s", f"{median(anchor):.2f} s"
    row.ratio = ratio_of_rounds(ours, anchor)
    row.met = row.ratio >= TARGET
    row.figures = {"ours_s": ours, "anchor_s": anchor}
    return [row]
