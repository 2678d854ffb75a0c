"""Scheduler efficiency at scale, simulated (issue 13, item 4): scheduler_sim's dynamic
schedule (the runner's real claim sizes, measured claim costs) at R virtual ranks, against
self-scheduling with free claims simulated in the same run. Target: efficiency >= 0.9 at
R = 1e5. Two workloads of benchmarks/README.md: 1 (log-normal, capped at 100 x the median)
and 3 (capped at 10 x)."""
import re

from common import Row, run, sci

TARGET = 0.9
ROW = r"^\s*{}\s+[\d.e+]+\s+([\d.]+)\s"


def rows(ctx):
    binary = ctx.binary("benchmarks/scheduler/scheduler_sim")
    ranks = 10000 if ctx.quick else 100000
    out = []
    for title, extra in (("workload 1: log-normal sigma 1, cap 100x", []),
                         ("workload 3: log-normal sigma 1, cap 10x", ["--cap", "10"])):
        ctx.log(f"  scheduler simulation, R = {ranks}, {title}")
        row = Row(f"scheduler sim R={sci(ranks)}, T=100R, {title}", target=f"eff >= {TARGET:g}")
        try:
            _, text = run([binary, "--ranks", str(ranks), "--dynamic", "1:0"] + extra, timeout=900)
            anchor = re.search(ROW.format(r"anchor: 1 task per claim, free"), text, re.M)
            ours = re.search(ROW.format(r"dynamic min 1 max 0"), text, re.M)
            if not anchor or not ours:
                raise RuntimeError("no anchor or dynamic row in scheduler_sim's output")
            eff, anchor_eff = float(ours.group(1)), float(anchor.group(1))
            row.ours, row.anchor = f"eff {eff:.3f}", f"eff {anchor_eff:.3f} (self-sched.)"
            row.ratio = eff / anchor_eff
            row.met = eff >= TARGET
            if not out:
                row.note = "scheduler rows: ratio = efficiency / self-scheduling's; met? judges the efficiency"
        except Exception as why:
            row.error(str(why))
        out.append(row)
    return out
