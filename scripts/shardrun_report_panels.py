"""The panels of `shardrun report`'s picture: the time line of every rank's attempts, the histogram
of task durations, and each rank's busy and idle time. Read by shardrun-report.py, which lays
them out; the numbers come from shardrun_report_data.py."""
from shardrun_report_data import after_interruption, duration_words, slots_of, time_axis

STATUS_NAMES = {0: "pending", 1: "ok", 2: "failed", 3: "skipped"}
COLORS = {1: "#4C72B0", 2: "#D1352B", 3: "#9A9A9A", 4: "#E69F00"}  # 4: an interrupted attempt


def draw_bars(ax, m, x_of):
    """The bars, one broken_barh per (colour, hatching, sub-row): ok solid, failed attempts hatched,
    interrupted attempts (a drain, stop or time limit) orange and hatched the other way."""
    bars = m["bars"]
    groups = {}
    for row, key in enumerate(m["keys"]):
        slot_of, slots = slots_of(bars, key)
        height = 0.8 / slots
        for i, slot in slot_of.items():
            y = row - 0.4 + slot * height
            status = 4 if bars["interrupted"][i] else 2 if bars["failed"][i] else 1
            hatched = bool(bars["failed"][i] or bars["retried"][i] or bars["interrupted"][i])
            groups.setdefault((status, hatched, y, height), []).append(i)
    span = max(float(x_of(bars["end"]).max()), 1e-6)
    widths = sorted(float(bars["end"][i] - bars["start"][i]) for i in range(len(bars["task"])))
    edge = 0.4 if len(widths) < 2000 and widths[len(widths) // 2] > span / 300 else 0  # white gaps unless too thin
    for (status, hatched, y, height), ids in groups.items():
        segments = [(float(x_of(bars["start"][i])), max(float(bars["end"][i] - bars["start"][i]), 1e-6)) for i in ids]
        ax.broken_barh(segments, (y, height), facecolors=COLORS[status], edgecolor="white", linewidth=edge,
                       hatch=("\\\\\\" if status == 4 else "///") if hatched else None)
    return groups, span


def label_bars(ax, m, x_of, groups, span):
    """Failed tasks' final attempts get `#id exit N`; other bars their id when they are wide enough."""
    bars = m["bars"]
    final_failures = [i for i in range(len(bars["task"])) if bars["failed"][i] and bars["final"][i]]
    label_failed = len(final_failures) <= 25 and len(m["keys"]) <= 64
    label_ids = len(bars["task"]) <= 120 and len(m["keys"]) <= 16
    for (status, _, y, height), ids in groups.items():
        for i in ids:
            x, width = float(x_of(bars["start"][i])), float(bars["end"][i] - bars["start"][i])
            wide = width / span > (0.07 if status == 2 else 0.03)
            if label_failed and i in final_failures:
                text = f"#{bars['task'][i]} exit {bars['exit_code'][i]}"
                if wide:  # inside the bar, else after it on a white box
                    ax.text(x + span * 0.004, y + height / 2, text, va="center", fontsize=8, color="white",
                            fontweight="bold", clip_on=True)
                else:
                    ax.annotate(text, (x + width, y + height / 2), xytext=(2, 0), textcoords="offset points",
                                va="center", fontsize=8, color=COLORS[2], fontweight="bold",
                                bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"), zorder=6)
            elif label_ids and wide and height >= 0.4:
                ax.text(x + span * 0.004, y + height / 2, f"#{bars['task'][i]}", va="center", fontsize=7,
                        color="white", clip_on=True)


def mark_resumes(ax, breaks, drained):
    """Each resume: a grey band where the time between runs was cut out, and how long it was; after a
    run that ended with interrupted attempts, it is the requeue (or resubmit) that followed a drain."""
    for (x, pause, width), after_drain in zip(breaks, drained):
        ax.axvspan(x - width, x, color="#BBBBBB", alpha=0.5, zorder=0)
        ax.axvline(x - width / 2, color="black", linestyle=":", linewidth=1.2, zorder=5)
        what = "drained, requeued or resumed" if after_drain else "resume"
        ax.annotate(f"{what} ({duration_words(pause)} later)", (x - width / 2, 0), xycoords=("data", "axes fraction"),
                    xytext=(3, 3), textcoords="offset points", fontsize=8, rotation=90, va="bottom")


def draw_timeline(ax, run, m):
    from matplotlib.patches import Patch

    x_of, breaks = time_axis(m["runs"])
    groups, span = draw_bars(ax, m, x_of)
    label_bars(ax, m, x_of, groups, span)
    mark_resumes(ax, breaks, after_interruption(m))
    keys = m["keys"]
    ax.set_ylim(len(keys) - 0.5, -0.5)
    step = max(1, len(keys) // 32)
    ax.set_yticks(range(0, len(keys), step))
    ax.set_yticklabels(m["labels"][::step])
    ax.set_ylabel("array element, rank (host)" if run["array_count"] > 1 else "rank (host)")
    ax.set_xlabel("seconds since the first task started" + (", time between runs cut out" if breaks else ""))
    ax.set_xlim(0, span * 1.04)
    ax.set_title("Tasks per rank over time" + (" (one bar per attempt)" if m["source"] == "attempts" else ""),
                 loc="left", fontweight="bold")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(handles=legend_entries(run, m, Patch), loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=4,
              fontsize=9, frameon=False)


def legend_entries(run, m, Patch):
    bars = m["bars"]
    failed_tasks = int((run["status"] == 2).sum())
    if m["source"] == "attempts":
        ok = int((~bars["failed"] & ~bars["interrupted"]).sum())
        entries = [Patch(facecolor=COLORS[1], label=f"ok attempt ({ok})"),
                   Patch(facecolor=COLORS[2], hatch="///", edgecolor="white",
                         label=f"failed attempt ({int(bars['failed'].sum())}; failed tasks: {failed_tasks})")]
        if bars["interrupted"].any():
            entries.append(Patch(facecolor=COLORS[4], hatch="\\\\\\", edgecolor="white",
                                 label=f"interrupted attempt ({int(bars['interrupted'].sum())})"))
        return entries
    return [Patch(facecolor=COLORS[1], label=f"ok ({int((~bars['failed']).sum())})"),
            Patch(facecolor=COLORS[2], hatch="///", edgecolor="white", label=f"failed ({int(bars['failed'].sum())})"),
            Patch(facecolor=COLORS[1], hatch="///", edgecolor="white",
                  label=f"ok after failed attempts ({int((bars['retried'] & ~bars['failed']).sum())})")]


def draw_durations(ax, run):
    import numpy as np

    drawn = np.flatnonzero((run["status"] != 0) & (run["start"] > 0) & (run["end"] >= run["start"]))
    if len(drawn) == 0:
        return

    seconds = run["end"][drawn] - run["start"][drawn]
    low, high = max(float(seconds.min()), 1e-6), max(float(seconds.max()), 1e-6)
    count = int(min(40, max(8, np.sqrt(len(seconds)) * 2)))
    log = high / low > 100
    bins = np.geomspace(low, high * 1.0001, count + 1) if log else np.linspace(0, high * 1.02, count + 1)
    groups = [(seconds[run["status"][drawn] == s], STATUS_NAMES[s], COLORS[s]) for s in (1, 2, 3)]
    groups = [g for g in groups if len(g[0])]
    ax.hist([g[0] for g in groups], bins=bins, stacked=True, color=[g[2] for g in groups],
            label=[g[1] for g in groups], edgecolor="white", linewidth=0.4)
    if log:
        ax.set_xscale("log")
    median = float(np.median(seconds))  # the dashed line and its legend entry
    ax.axvline(median, color="black", linestyle="--", linewidth=1, label=f"median {median:.3g} s")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)  # room for the legend above the tallest bin
    ax.set_title("Task durations", loc="left", fontweight="bold")
    ax.set_xlabel("seconds per task (first attempt's start to last attempt's end)")
    ax.set_ylabel("tasks")
    ax.legend(fontsize=9, loc="upper right", ncol=len(groups) + 1, frameon=False)
    ax.grid(axis="y", alpha=0.3)


def draw_busy(ax, run, m):
    import numpy as np

    keys, busy, idle = m["keys"], m["busy"], m["idle"]
    width = 0.6 if len(keys) <= 64 else 1.0
    x = np.arange(len(keys))
    busy_bars = ax.bar(x, busy, color=COLORS[1], width=width, label="busy")
    idle_bars = ax.bar(x, idle, bottom=busy, color="#DDDDDD", width=width, label="idle")
    handles = [busy_bars, idle_bars]
    startup = m["startup"]
    if startup.max(initial=0.0) > 0:
        # Exec workers' load: the rank's start-up, in neither its busy nor its tasks' seconds.
        handles.append(ax.bar(x, startup, bottom=busy + idle, color="white", edgecolor="#777777", hatch="..",
                              width=width, label="worker start-up"))
    mean_line = ax.axhline(m["mean_busy"], color="black", linestyle="--", linewidth=1,
                           label=f"mean busy {m['mean_busy']:.3g} s")
    handles.append(mean_line)
    ax.set_ylim(0, max(float((busy + idle + startup).max()), float(busy.max()), 1e-6) * 1.22)  # room for the legend
    ax.set_title(f"Busy time per rank (imbalance {m['imbalance']:.2f} max/mean)", loc="left", fontweight="bold")
    step = -(-len(keys) // 16)
    ax.set_xticks(range(0, len(keys), step))
    many = run["array_count"] > 1 or len(keys) > 8
    ax.set_xticklabels(m["labels"][::step], rotation=90 if many else 0, fontsize=8 if many else 9)
    ax.set_xlabel("array element, rank (host)" if run["array_count"] > 1 else "rank (host)")
    several = max(slots_of(m["bars"], k)[1] for k in keys) > 1
    runs = len(m["runs"])
    ax.set_ylabel("seconds: busy = time in tasks,\nidle = " + ("running time of its runs" if runs > 1 else "wall span")
                  + (" x slots" if several else "") + " - busy", fontsize=9)
    ax.legend(handles=handles, fontsize=9, frameon=False, loc="upper right", ncol=len(handles))
    ax.grid(axis="y", alpha=0.3)
