"""Dispatch of /bin/true tasks on 2 ranks or workers (issue 13, item 1): shardrun against
xargs -P 2, GNU parallel -j 2, mpi4py.futures and HyperQueue, all in the same rounds.
Every contender writes what it writes on the scratch disk (ext4), not tmpfs.
Also against the physical limit (issue 25, point 5): benchmarks/runner/spawn_limit, posix_spawn +
waitid with 2 in flight and no runner; and shardrun's start-up share, a 1-task run of the same job
over the whole run. At least 5 interleaved rounds (issue 36, point 3: 3 proved too few on these machines).

SHARDRUN_DISPATCH_BASELINE=/path/to/an/older/shardrun adds that binary as one more contender in the
same rounds, and a row of this build against it: a before/after ratio measured side by side."""
import os
import shutil

import deps
from common import HERE, Row, Skip, interleave, median, mpi_env, ratio_of_rounds, run, shardrun_job

# Issue 13: >= 1.0 x xargs, and "we should lead every one of these"; GNU parallel's
# >= 4 comes from benchmarks/README.md (exec throughput).
SPAWN_LIMIT_TARGET = 0.8   # issue 36, point 3: >= 0.8 x the limit at 2,000 and 10,000 tasks
MIN_ROUNDS = 5
TARGETS = {"xargs -P 2": 1.0, "GNU parallel -j 2": 4.0, "mpi4py.futures (2 workers)": 1.0,
           "HyperQueue (Python API, 2 cores)": 1.0}


def _shardrun(ctx, tasks, binary=None):
    return shardrun_job(ctx, "dispatch-shardrun", binary=binary, job_yaml=lambda work: (
        f"name: dispatch\ntask: exec\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
        f"schedule: dynamic\noutput: {{path: {work}/out/true.h5}}\n"
        "exec: {argv: [/bin/true, \"{i}\"]}\n"))


def _spawn_limit(ctx, tasks):
    def once():
        return run([ctx.binary("benchmarks/runner/spawn_limit"), str(tasks), "2", "/bin/true"])[0]
    return once


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
    rounds = ctx.rounds if ctx.quick else max(ctx.rounds, MIN_ROUNDS)
    baseline = os.environ.get("SHARDRUN_DISPATCH_BASELINE")
    out = []
    for tasks in sizes:
        ctx.log(f"  dispatch, {tasks} tasks")
        contenders = {"shardrun": _shardrun(ctx, tasks), "shardrun, 1 task": _shardrun(ctx, 1),
                      **({"baseline": _shardrun(ctx, tasks, baseline)} if baseline else {}),
                      "spawn limit": _spawn_limit(ctx, tasks), "xargs -P 2": _xargs(ctx, tasks),
                      "GNU parallel -j 2": _parallel(ctx, tasks),
                      "mpi4py.futures (2 workers)": _mpi4py(ctx, tasks),
                      "HyperQueue (Python API, 2 cores)": _hyperqueue(ctx, tasks)}
        times = interleave(contenders, rounds, ctx.log)
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
        out.append(_limit_row(tasks, times))
        if baseline:
            out.append(_baseline_row(tasks, times, baseline))
    return out


def _limit_row(tasks, times):
    """shardrun against posix_spawn's own rate, mpirun's start-up included (the row says how much
    of the run it is)."""
    target = SPAWN_LIMIT_TARGET
    row = Row(f"dispatch {tasks} x /bin/true vs spawn limit (posix_spawn+waitid, 2 in flight)",
              target=f">= {target:g}")
    ours, limit, startup = times["shardrun"], times["spawn limit"], times["shardrun, 1 task"]
    if isinstance(ours, str) or isinstance(limit, str):
        return row.error(ours if isinstance(ours, str) else limit)
    row.ours, row.anchor = f"{tasks / median(ours):.0f}/s", f"{tasks / median(limit):.0f}/s"
    row.ratio = ratio_of_rounds(ours, limit)
    row.met = row.ratio >= target if target else None
    row.figures = {"ours_s": ours, "anchor_s": limit}
    if not isinstance(startup, str):
        share = median(startup) / median(ours)
        row.note = f"start-up (a 1-task run) {median(startup):.2f} s = {share:.0%} of the run"
        row.figures["startup_s"] = startup
    return row


def _baseline_row(tasks, times, baseline):
    """This build against an older binary in the same rounds (no target: a before/after figure)."""
    row = Row(f"dispatch {tasks} x /bin/true vs baseline {baseline}")
    ours, anchor = times["shardrun"], times["baseline"]
    if isinstance(ours, str) or isinstance(anchor, str):
        return row.error(ours if isinstance(ours, str) else anchor)
    row.ours, row.anchor = f"{tasks / median(ours):.0f}/s", f"{tasks / median(anchor):.0f}/s"
    row.ratio = ratio_of_rounds(ours, anchor)
    row.figures = {"ours_s": ours, "anchor_s": anchor}
    return row
