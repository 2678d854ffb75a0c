"""Master creation (issue 13, item 3): `shardrun merge` rebuilding the master from the segments
of T no-op tasks, against a raw sequential copy of the same bytes (cat | dd conv=fsync).
benchmarks/runner/coordinator_scale.sh (the coordinator helper's script) measures both, merge
then copy, on each call; each round is one call; the ratio is the median over rounds of copy
seconds / merge seconds. Target >= 0.8."""
import json
import os

from common import ROOT, Row, median, run, sci

TARGET = 0.8


def _round(ctx, binary, tasks, work):
    out = os.path.join(work, "coordinator.jsonl")
    script = os.path.join(ROOT, "benchmarks", "runner", "coordinator_scale.sh")
    env = dict(os.environ, SHARDRUN_LAYOUTS="shards", TMPDIR=work)
    run([script, "--json", out, binary, "600", str(tasks)], env=env, timeout=1800)
    steps = {}
    with open(out) as f:
        for line in f:
            record = json.loads(line)
            steps[record["step"]] = record
    for step in ("merge", "copy"):
        wall = steps.get(step, {}).get("wall_s", "-")
        if wall in ("-", "timeout", ""):
            raise RuntimeError(f"coordinator_scale.sh: no {step} time ({wall})")
    merge, copy = float(steps["merge"]["wall_s"]), float(steps["copy"]["wall_s"])
    ctx.log(f"    T = {tasks}: merge {merge:.2f} s, raw copy {copy:.2f} s")
    return merge, copy


def rows(ctx):
    binary = ctx.binary("shardrun")
    tasks = 10_000 if ctx.quick else 1_000_000
    work = ctx.scratch("master")
    ctx.log(f"  master creation, T = {tasks}, layout shards")
    merges, copies = [], []
    for _ in range(ctx.rounds):
        merge, copy = _round(ctx, binary, tasks, work)
        merges.append(merge)
        copies.append(copy)
    ratio = median([c / m for c, m in zip(copies, merges)])
    return [Row(f"master creation (merge) T={sci(tasks)} vs raw sequential copy", ours=f"{median(merges):.2f} s",
                anchor=f"{median(copies):.2f} s", ratio=ratio, target=f">= {TARGET:g}", met=ratio >= TARGET,
                figures={"merge_s": merges, "copy_s": copies})]
