#!/usr/bin/python3
"""Draws a picture of a shardrun run from its results file's /attempts (or /tasks).

    shardrun report OUT [--png FILE] [--html FILE] [--stats FILE] [--run-gap SECONDS]
    (or: scripts/shardrun-report.py OUT ...)

One PNG (default: OUT without .h5, plus .report.png) with three panels: the tasks of every
rank on a time line (a Gantt chart, ranks labelled `r3 (host)`: one bar per attempt when the
file has /attempts, failed attempts red and hatched, a failed task's last attempt labelled with
its id and exit code; without /attempts one bar per task, hatched when it holds failed
attempts; each --resume marked where the time between runs is cut out), a histogram of task
durations, and the busy and idle time of every rank (idle counts only the time its runs ran)
against the mean. The file records no run boundaries: a run ends where no task ran for more
than --run-gap seconds (default 60). --html also writes a page that embeds the PNG
(self-contained) with a summary and the failed tasks; --stats the numbers behind the picture
(JSON). Needs Debian's python3-h5py and python3-matplotlib.
Exit codes: 0 written, 2 bad input (one line on stderr), 1 anything else.
"""
import argparse
import base64
import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))  # shardrun_report_data.py lies beside it
from shardrun_report_data import (BadInput, duration_words, model, open_results, read_run, slots_of, stats,  # noqa: E402
                                  time_axis)
from shardrun_report_gpu import draw_gpu, gpu_stats, gpu_words, read_gpu  # noqa: E402

STATUS_NAMES = {0: "pending", 1: "ok", 2: "failed", 3: "skipped"}
COLORS = {1: "#4C72B0", 2: "#D1352B", 3: "#9A9A9A"}


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="shardrun report", description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="the results file (output.path of the job)")
    parser.add_argument("--png", help="the picture to write (default: OUT without .h5 + .report.png)")
    parser.add_argument("--html", help="also write an HTML page that embeds the picture")
    parser.add_argument("--stats", help="also write the numbers behind the picture as JSON")
    parser.add_argument("--run-gap", type=float, default=60.0,
                        help="seconds with no task running that separate two runs (a --resume); default 60")
    # Set by `shardrun report` for a running job, whose snapshot it writes to a private folder.
    parser.add_argument("--as", dest="shown_path", help=argparse.SUPPRESS)
    parser.add_argument("--running", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.run_gap > 0:
        raise BadInput(f"--run-gap {args.run_gap}: give a number of seconds above 0")
    return args


def draw_bars(ax, m, x_of):
    """The bars, one broken_barh per (colour, hatching, sub-row): ok solid, failed attempts hatched."""
    bars = m["bars"]
    groups = {}
    for row, key in enumerate(m["keys"]):
        slot_of, slots = slots_of(bars, key)
        height = 0.8 / slots
        for i, slot in slot_of.items():
            y = row - 0.4 + slot * height
            status = 2 if bars["failed"][i] else 1
            hatched = bool(bars["failed"][i] or bars["retried"][i])
            groups.setdefault((status, hatched, y, height), []).append(i)
    span = max(float(x_of(bars["end"]).max()), 1e-6)
    widths = sorted(float(bars["end"][i] - bars["start"][i]) for i in range(len(bars["task"])))
    edge = 0.4 if len(widths) < 2000 and widths[len(widths) // 2] > span / 300 else 0  # white gaps unless too thin
    for (status, hatched, y, height), ids in groups.items():
        segments = [(float(x_of(bars["start"][i])), max(float(bars["end"][i] - bars["start"][i]), 1e-6)) for i in ids]
        ax.broken_barh(segments, (y, height), facecolors=COLORS[status], edgecolor="white", linewidth=edge,
                       hatch="///" if hatched else None)
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


def mark_resumes(ax, breaks):
    """Each resume: a grey band where the time between runs was cut out, and how long it was."""
    for x, pause, width in breaks:
        ax.axvspan(x - width, x, color="#BBBBBB", alpha=0.5, zorder=0)
        ax.axvline(x - width / 2, color="black", linestyle=":", linewidth=1.2, zorder=5)
        ax.annotate(f"resume ({duration_words(pause)} later)", (x - width / 2, 0), xycoords=("data", "axes fraction"),
                    xytext=(3, 3), textcoords="offset points", fontsize=8, rotation=90, va="bottom")


def draw_timeline(ax, run, m):
    from matplotlib.patches import Patch

    x_of, breaks = time_axis(m["runs"])
    groups, span = draw_bars(ax, m, x_of)
    label_bars(ax, m, x_of, groups, span)
    mark_resumes(ax, breaks)
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
        return [Patch(facecolor=COLORS[1], label=f"ok attempt ({int((~bars['failed']).sum())})"),
                Patch(facecolor=COLORS[2], hatch="///", edgecolor="white",
                      label=f"failed attempt ({int(bars['failed'].sum())}; failed tasks: {failed_tasks})")]
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


def summary_line(run, m):
    counts = {s: int(sum(run["status"] == s)) for s in STATUS_NAMES}
    running = sum(end - begin for begin, end in m["runs"])
    state = "complete" if run["complete"] else "NOT complete"
    if run.get("running"):
        state = "running: {} of {} committed".format(*run["running"])
    runs = len(m["runs"])
    return (f"{run['job']}: {len(run['status'])} tasks, {counts[1]} ok, {counts[2]} failed, {counts[3]} skipped, "
            f"{counts[0]} pending ({state}); {run['world_size']} ranks"
            + (f" x {run['array_count']} array elements" if run["array_count"] > 1 else "")
            + f"; {running:.3g} s from first start to last end"
            + (f" in {runs} runs (the time between them left out)" if runs > 1 else "")
            + startup_words(m) + gpu_words(run.get("gpu"))
            + (f"; {len(run['quarantined'])} GPU(s) quarantined" if run.get("quarantined") else ""))


def startup_words(m):
    """'; worker start-up per rank 1.2-2.0 s' when exec workers loaded (the file's /ranks), else ''."""
    loaded = m["startup"][m["startup"] > 0]
    if not len(loaded):
        return ""
    return f"; worker start-up per rank {loaded.min():.2g}-{loaded.max():.2g} s"


def render(run, m, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = len(m["keys"])
    timeline_height = min(max(0.32 * rows, 2.6), 12)
    # A third row, the GPU panel, where the file has per-task GPU telemetry (/tasks/gpu_*).
    gpu = run.get("gpu") if gpu_stats(run.get("gpu")) else None
    heights = [timeline_height, 3.6] + ([3.6] if gpu else [])
    fig = plt.figure(figsize=(13, sum(heights) + 1.6), dpi=100, layout="constrained")
    grid = fig.add_gridspec(len(heights), 2, height_ratios=heights)
    draw_timeline(fig.add_subplot(grid[0, :]), run, m)
    draw_durations(fig.add_subplot(grid[1, 0]), run)
    draw_busy(fig.add_subplot(grid[1, 1]), run, m)
    if gpu:
        draw_gpu(fig.add_subplot(grid[2, 0]), fig.add_subplot(grid[2, 1]), run, gpu)
    summary = summary_line(run, m)
    fig.suptitle(summary.replace("; ", "\n", 1), fontsize=12, fontweight="bold", x=0.01, ha="left")
    fig.savefig(png)
    plt.close(fig)
    return summary


def write_html(run, png, page, summary):
    with open(png, "rb") as f:
        image = base64.b64encode(f.read()).decode()
    failed = [i for i in range(len(run["status"])) if run["status"][i] == 2]
    rows = "".join(f"<tr><td>{i}</td><td>{run['rank'][i]}</td><td>{html.escape(run['host'][i])}</td>"
                   f"<td>{run['exit_code'][i]}</td><td>{run['attempts'][i]}</td>"
                   f"<td>{run['end'][i] - run['start'][i]:.3f}</td>"
                   f"<td style=\"text-align:left\">{html.escape(run['message'][i])}</td></tr>" for i in failed[:200])
    more = f"<p>... and {len(failed) - 200} more failed tasks</p>" if len(failed) > 200 else ""
    table = (f"<h2>Failed tasks ({len(failed)})</h2><table><tr><th>task</th><th>rank</th><th>host</th>"
             f"<th>exit code</th><th>attempts</th><th>seconds</th><th>message</th></tr>{rows}</table>{more}"
             ) if failed else ""
    quarantined = "".join(f"<p>GPU out of the job: {html.escape(line)}</p>" for line in run.get("quarantined", []))
    text = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>shardrun report: {html.escape(run['job'])}</title>
<style>body{{font-family:sans-serif;margin:2em}} img{{max-width:100%}} td,th{{padding:2px 10px;text-align:right}}
table{{border-collapse:collapse}} tr:nth-child(even){{background:#f2f2f2}}</style></head>
<body><h1>shardrun report: {html.escape(run['job'])}</h1>
<p>{html.escape(summary)}</p><p>results file: <code>{html.escape(os.path.abspath(run['path']))}</code>,
created {html.escape(run['created'])}</p>
<img alt="tasks per rank over time, task durations, busy time per rank" src="data:image/png;base64,{image}">
{quarantined}{table}</body></html>
"""
    with open(page, "w") as f:
        f.write(text)


def main(argv):
    try:
        import h5py  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise BadInput(f"needs Python 3 with h5py and matplotlib ({error}); on Debian/Ubuntu: "
                       "apt-get install python3-h5py python3-matplotlib")
    args = parse_args(argv)
    run = read_run(args.output)
    if args.shown_path:
        run["path"] = args.shown_path
    if args.running:
        run["running"] = [int(n) for n in args.running.split()]
    with open_results(args.output) as f:
        run["gpu"] = read_gpu(f)
    m = model(run, args.run_gap)
    png = args.png or (args.output[:-3] if args.output.endswith(".h5") else args.output) + ".report.png"
    for target in filter(None, (png, args.html, args.stats)):
        folder = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise BadInput(f"{target}: its folder {folder} does not exist or is not writable")
    summary = render(run, m, png)
    for line in run["quarantined"]:
        print(f"report: GPU out of the job: {line}")
    print(f"report: {png}")
    if args.html:
        write_html(run, png, args.html, summary)
        print(f"report: {args.html}")
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump(dict(stats(run, m), gpu=gpu_stats(run["gpu"]), quarantined=run["quarantined"]), f, indent=1)
        print(f"report: {args.stats}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as error:
        print(f"shardrun: report: {error}", file=sys.stderr)
        sys.exit(2)
