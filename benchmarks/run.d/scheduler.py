"""Scheduler efficiency at scale, simulated (issue 13, item 4; issue 25, item 1): scheduler_sim's
dynamic schedule (the runner's claims: adaptive sizes out of the ClaimSequence blocks, take-back
on a node, speed-weighted refills; measured claim costs) at R virtual ranks, against
self-scheduling with free claims simulated in the same run. Target: efficiency >= 0.9 at
R = 1e5 on workload 3, and on the heterogeneous workloads where free claims reach >= 0.95.
Workloads of benchmarks/README.md: 1 (log-normal, capped at 100 x the median), 3 (capped at
10 x), and issue 25's: one node 10 x slower, a log-normal per-rank slowdown, a size sweep.
One more row: claim messages (refills) per task on workload 3 against the whole-block claims
of before issue 25, same run; target <= 1 x.
Issue 36: the slow-node case (one node 10 x slower, workload 3) at R = 1e3, 1e4, 1e5 against
self-scheduling with free claims (target >= 0.9 x); claim round trips on workload 3 (work of
one speed) against the claims of before issue 36 (moves within nodes only; target <= 1 x);
and a node that stops answering mid-run (R = 1e3): its ids are rerun elsewhere, every id once."""
import re

from common import Row, run, sci

TARGET = 0.9
FREE_ENOUGH = 0.95
WORKLOADS = (("workload 1: log-normal sigma 1, cap 100x", []),
             ("workload 3: log-normal sigma 1, cap 10x", ["--cap", "10"]),
             ("one node 10x slower (workload 3)", ["--cap", "10", "--slow-node", "10"]),
             ("per-rank log-normal slowdown sigma 0.5 (workload 3)", ["--cap", "10", "--rank-sigma", "0.5"]),
             ("size sweep x100 in id order (workload 3)", ["--cap", "10", "--sweep", "100"]))


def _columns(text, name):
    """The figures of the row named `name`: wall, efficiency, / anchor, claims, refills, refill/T, ..."""
    match = re.search(r"^\s*" + re.escape(name) + r"\s{2,}(.*)$", text, re.M)
    if not match:
        raise RuntimeError(f"no '{name}' row in scheduler_sim's output")
    return match.group(1).split()


def rows(ctx):
    binary = ctx.binary("benchmarks/scheduler/scheduler_sim")
    ranks = 10000 if ctx.quick else 100000
    out = []
    for title, extra in WORKLOADS:
        ctx.log(f"  scheduler simulation, R = {ranks}, {title}")
        row = Row(f"scheduler sim R={sci(ranks)}, T=100R, {title}", target=f"eff >= {TARGET:g}")
        try:
            _, text = run([binary, "--ranks", str(ranks), "--dynamic", "1:0"] + extra, timeout=900)
            anchor = float(_columns(text, "anchor: 1 task per claim, free")[1])
            eff = float(_columns(text, "adaptive min 1 max 0")[1])
            free = float(_columns(text, "adaptive min 1 max 0, free claims")[1])
            before = float(_columns(text, "whole blocks (before) min 1 max 0")[1])
            row.ours, row.anchor = f"eff {eff:.3f}", f"eff {anchor:.3f} (self-sched.)"
            row.ratio = eff / anchor
            # Issue 13's target binds on workloads 1 and 3; issue 25's on the heterogeneous ones
            # where free claims reach FREE_ENOUGH.
            binding = title.startswith("workload ") or free >= FREE_ENOUGH
            row.met = eff >= TARGET if binding else None
            if not binding:  # a reader took "eff >= 0.9" with met? "-" for a miss left unsaid
                row.target = f"none (free claims {free:.2f} < {FREE_ENOUGH:g})"
            row.note = f"free claims {free:.3f}, before issue 25 {before:.3f}" + ("" if binding else "; target n/a")
            row.figures = {"efficiency": eff, "anchor": anchor, "free_claims": free, "before": before}
            if "workload 3:" in title:
                ours_msgs = float(_columns(text, "adaptive min 1 max 0")[5])
                old_msgs = float(_columns(text, "whole blocks (before) min 1 max 0")[5])
                msgs = Row(f"scheduler sim R={sci(ranks)}, workload 3: claim messages (refills) per task",
                           target="<= 1 x before")
                msgs.ours, msgs.anchor = f"{ours_msgs:.4f}/task", f"{old_msgs:.4f}/task (whole blocks)"
                msgs.ratio = ours_msgs / old_msgs if old_msgs else None
                msgs.met = ours_msgs <= old_msgs
                out.append(row)
                out.append(msgs)
                continue
        except Exception as why:
            row.error(str(why))
        out.append(row)
    out += _node_moves_rows(ctx, binary)
    if out:
        out[0].note = "scheduler rows: ratio = efficiency / self-scheduling's; met? judges the efficiency; " + out[0].note
    return out


SLOW_NODE_TARGET = 0.9
OURS = "adaptive min 1 max 0"
BEFORE_36 = "adaptive min 1 max 0, within nodes (before)"
ANCHOR = "anchor: 1 task per claim, free"


def _node_moves_rows(ctx, binary):
    """Issue 36: moves of ids between nodes, simulated."""
    out = []
    for ranks in ((1000, 10000) if ctx.quick else (1000, 10000, 100000)):
        ctx.log(f"  scheduler simulation, R = {ranks}, one node 10x slower: moves between nodes")
        row = Row(f"scheduler sim R={sci(ranks)}, one node 10x slower: moves between nodes vs free self-sched.",
                  target=f">= {SLOW_NODE_TARGET:g} x")
        msgs = Row(f"scheduler sim R={sci(ranks)}, workload 3: claim round trips with moves vs before issue 36",
                   target="<= 1 x before")
        try:
            _, slow = run([binary, "--ranks", str(ranks), "--dynamic", "1:0", "--cap", "10", "--slow-node", "10"],
                          timeout=900)
            ours, anchor = float(_columns(slow, OURS)[1]), float(_columns(slow, ANCHOR)[1])
            before = float(_columns(slow, BEFORE_36)[1])
            row.ours, row.anchor = f"eff {ours:.3f}", f"eff {anchor:.3f} (free, 1 a claim)"
            row.ratio = ours / anchor
            row.met = row.ratio >= SLOW_NODE_TARGET
            row.note = f"before issue 36 {before:.3f} ({before / anchor:.3f} x)"
            row.figures = {"efficiency": ours, "anchor": anchor, "before": before}
            _, uniform = run([binary, "--ranks", str(ranks), "--dynamic", "1:0", "--cap", "10"], timeout=900)
            ours_trips, old_trips = int(_columns(uniform, OURS)[4]), int(_columns(uniform, BEFORE_36)[4])
            msgs.ours, msgs.anchor = f"{ours_trips} round trips", f"{old_trips} (moves within nodes only)"
            msgs.ratio = ours_trips / old_trips if old_trips else None
            msgs.met = ours_trips <= old_trips
            msgs.figures = {"round_trips": ours_trips, "before": old_trips}
        except Exception as why:
            row.error(str(why))
            msgs.error(str(why))
        out += [row, msgs]
    ctx.log("  scheduler simulation, R = 1e3, node 3 stops answering at 50 s")
    dead = Row("scheduler sim R=1e3, workload 3, node 3 of 16 stops answering at 50 s: its ids rerun elsewhere",
               target="every id once")
    try:
        # scheduler_sim fails when a row ran other than T tasks (each id once), so a row is the proof.
        _, text = run([binary, "--ranks", "1000", "--dynamic", "1:0", "--cap", "10", "--dead-node", "3",
                       "--dead-at", "50"], timeout=900)
        columns = _columns(text, OURS)
        dead.ours, dead.anchor = f"eff {float(columns[1]):.3f}", f"eff {float(_columns(text, ANCHOR)[1]):.3f} (no node lost)"
        dead.ratio = float(columns[2])
        dead.met = int(columns[-1]) > 0
        dead.note = f"{columns[-1]} ids of the lost node rerun elsewhere (given up after 10 s of silence)"
    except Exception as why:
        dead.error(str(why))
    out.append(dead)
    return out
