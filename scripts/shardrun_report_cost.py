"""Efficiency and cost in shardrun report (issue 38): GPU-hours weighted by GPM's SM activity, tasks
flagged "GPU mostly idle", energy and money totals, from /tasks/gpu_sm_active, energy_j, cost_usd.

Read by shardrun-report.py; columns a file lacks (no GPM, no price, no energy counter) leave their part out.
"""
import math

IDLE_SM_ACTIVE = 20.0  # % SM activity under which a task's GPU time is flagged "GPU mostly idle"


def read_cost(f, run):
    """{column: array, 'seconds': array} of what the file has, or None when it has none of the columns."""
    tasks = f["tasks"] if "tasks" in f else {}
    names = [c for c in ("gpu_sm_active", "gpu_sm_occupancy", "gpu_tensor_active", "gpu_dram_bw", "energy_j",
                         "cost_usd") if c in tasks]
    if not names:
        return None
    out = {c: tasks[c][:] for c in names}
    out["seconds"] = run["end"] - run["start"]
    return out


def finite(values):
    return [v for v in values if not math.isnan(v)]


def cost_stats(cost):
    """Totals for --stats and the summary, or None."""
    if cost is None:
        return None
    s = {}
    if "energy_j" in cost and finite(cost["energy_j"]):
        s["energy_kwh_total"] = sum(finite(cost["energy_j"])) / 3.6e6
    if "cost_usd" in cost and finite(cost["cost_usd"]):
        s["cost_usd_total"] = sum(finite(cost["cost_usd"]))
    if "gpu_sm_active" in cost:
        sm = cost["gpu_sm_active"]
        ids = [i for i in range(len(sm)) if not math.isnan(sm[i])]
        hours = {i: max(0.0, float(cost["seconds"][i])) / 3600 for i in ids}
        s["gpu_hours"] = sum(hours.values())
        s["gpu_hours_sm_weighted"] = sum(hours[i] * sm[i] / 100 for i in ids)
        idle = sorted((i for i in ids if sm[i] < IDLE_SM_ACTIVE), key=lambda i: (sm[i], -hours[i]))
        s["idle_threshold_sm_active"] = IDLE_SM_ACTIVE
        s["gpu_mostly_idle"] = [{"task": int(i), "sm_active": float(sm[i]), "gpu_hours": hours[i]} for i in idle]
        if ids:
            worst = min(ids, key=lambda i: (sm[i], -hours[i]))
            s["worst"] = {"task": int(worst), "sm_active": float(sm[worst]), "gpu_hours": hours[worst]}
    return s or None


def cost_words(cost):
    """'; 0.12 GPU-h, 0.03 at SM activity; 2 tasks GPU mostly idle, worst task 3 (SM 4 %); 0.5 kWh; $1.23' or ''."""
    s = cost_stats(cost)
    if s is None:
        return ""
    words = ""
    if "gpu_hours" in s:
        words += f"; {s['gpu_hours']:.3g} GPU-h, {s['gpu_hours_sm_weighted']:.3g} weighted by SM activity"
        if s["gpu_mostly_idle"]:
            words += f"; {len(s['gpu_mostly_idle'])} task(s) GPU mostly idle (SM activity < {IDLE_SM_ACTIVE:.0f} %)"
        if "worst" in s:
            words += f", worst task {s['worst']['task']} (SM activity {s['worst']['sm_active']:.0f} %)"
    if "energy_kwh_total" in s:
        words += f"; {s['energy_kwh_total']:.3g} kWh"
    if "cost_usd_total" in s:
        words += f"; ${s['cost_usd_total']:.2f}"
    return words


def idle_lines(cost, limit=10):
    """One 'GPU mostly idle' line per flagged task, the worst first."""
    s = cost_stats(cost) or {}
    flagged = s.get("gpu_mostly_idle", [])
    lines = [f"GPU mostly idle: task {t['task']}: SM activity {t['sm_active']:.0f} % over {t['gpu_hours'] * 3600:.3g} s"
             for t in flagged[:limit]]
    if len(flagged) > limit:
        lines.append(f"GPU mostly idle: and {len(flagged) - limit} more tasks")
    return lines
