"""Dispatch of /bin/true tasks on 2 ranks or workers (issue 13, item 1): shardrun against
xargs -P 2, GNU parallel -j 2, mpi4py.futures and HyperQueue, all in the same rounds.
Every contender writes what it writes on the scratch disk (ext4), not tmpfs."""
import os
import shutil

import deps
from common import HERE, Row, Skip, interleave, median, mpi_env, ratio_of_rounds, run, shardrun_job

# Issue 13: >= 1.0 x xargs, and "we should lead every one of these"; GNU parallel's
# >= 4 comes from benchmarks/README.md (exec throughput).
TARGETS = {"xargs -P 2": 1.0, "GNU parallel -j 2": 4.0, "mpi4py.futures (2 workers)": 1.0,
           "HyperQueue (Python API, 2 cores)": 1.0}


def _shardrun(ctx, tasks):
    return shardrun_job(ctx, "dispatch-shardrun", lambda work: (
        f"name: dispatch\ntask: exec\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
        f"schedule: dynamic\noutput: {{path: {work}/out/true.h5}}\n"
        "exec: {argv: [/bin/true, \"{i}\"]}\n"))


def _xargs(ctx, tasks):
    return lambda: run(f"seq {tasks} | xargs -P 2 -n 1 /bin/true", shell=True)[0]


def _parallel(ctx, tasks):
    state = {}

    def once():
        state.setdefault("bin", deps.gnu_parallel(ctx.log))
        work = ctx.scratch("dispatch-parallel")   # its temporary files go to the disk too
        seconds, _ = run(f"seq {tasks} | {state['bin']} --will-cite -j 2 /bin/true", shell=True,
                         env=dict(os.environ, TMPDIR=work))
        return seconds
    return once


def _mpi4py(ctx, tasks):
    state = {}

    def once():
        state.setdefault("python", deps.mpi4py(ctx.log))
        script = os.path.join(HERE, "mpi4py_dispatch.py")
        return run(["mpirun", "-np", "3", state["python"], "-m", "mpi4py.futures", script, str(tasks)],
                   env=mpi_env())[0]
    return once


def _hyperqueue(ctx, tasks):
    state = {}

    def once():
        if "python" not in state:
            try:
                state["python"] = deps.hyperqueue(ctx.log)
            except Skip as why:
                state["python"] = why
        if isinstance(state["python"], Skip):
            raise state["python"]
        work = ctx.scratch("dispatch-hq")
        seconds, _ = run([state["python"], os.path.join(HERE, "hq_dispatch.py"), str(tasks), work])
        shutil.rmtree(work, ignore_errors=True)
        return seconds
    return once


def rows(ctx):
    sizes = [200, 500] if ctx.quick else [2000, 10000]
    out = []
    for tasks in sizes:
        ctx.log(f"  dispatch, {tasks} tasks")
        contenders = {"shardrun": _shardrun(ctx, tasks), "xargs -P 2": _xargs(ctx, tasks),
                      "GNU parallel -j 2": _parallel(ctx, tasks),
                      "mpi4py.futures (2 workers)": _mpi4py(ctx, tasks),
                      "HyperQueue (Python API, 2 cores)": _hyperqueue(ctx, tasks)}
        times = interleave(contenders, ctx.rounds, ctx.log)
        ours = times["shardrun"]
        for name, target in TARGETS.items():
            row = Row(f"dispatch {tasks} x /bin/true vs {name}", target=f">= {target:g}")
            anchor = times[name]
            if isinstance(ours, str):
                row.error(ours)
            elif isinstance(anchor, str):
                row.ours = f"{tasks / median(ours):.0f}/s"
                row.anchor = anchor
            else:
                row.ours, row.anchor = f"{tasks / median(ours):.0f}/s", f"{tasks / median(anchor):.0f}/s"
                row.ratio = ratio_of_rounds(ours, anchor)
                row.met = row.ratio >= target
                row.figures = {"ours_s": ours, "anchor_s": anchor}
            out.append(row)
    return out
