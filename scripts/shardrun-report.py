#!/usr/bin/python3
"""Draws a picture of a finished shardrun run from its results file's /tasks.

    shardrun report OUT [--png FILE] [--html FILE]      (or: scripts/shardrun-report.py OUT ...)

One PNG (default: OUT without .h5, plus .report.png) with three panels: the tasks of every
rank on a time line (a Gantt chart; failed tasks red and labelled with their id and exit code,
retried tasks, attempts > 1, hatched), a histogram of task durations, and the busy time of
every rank against the mean. --html also writes a page that embeds the PNG (self-contained)
with a summary table and the failed tasks. Needs Debian's python3-h5py and python3-matplotlib.
Exit codes: 0 written, 2 bad input (one line on stderr), 1 anything else.
"""
import argparse
import base64
import html
import os
import sys

STATUS_NAMES = {0: "pending", 1: "ok", 2: "failed", 3: "skipped"}
COLORS = {1: "#4C72B0", 2: "#D1352B", 3: "#9A9A9A"}


class BadInput(Exception):
    """Exit 2 with one line: a missing or wrong file, an unwritable output folder."""


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="shardrun report", description=__doc__.split("\n\n")[0])
    parser.add_argument("output", help="the results file (output.path of the job)")
    parser.add_argument("--png", help="the picture to write (default: OUT without .h5 + .report.png)")
    parser.add_argument("--html", help="also write an HTML page that embeds the picture")
    return parser.parse_args(argv)


def text_attr(attrs, name, default=""):
    value = attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else str(value)


def read_run(path):
    """The columns of /tasks and the root attributes the picture needs, checked."""
    import h5py

    if not os.path.exists(path):
        if os.path.isdir(path + ".shards"):
            raise BadInput(f"{path}: not merged yet (only {path}.shards/ exists): run shardrun merge {path} first")
        raise BadInput(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as error:
        raise BadInput(f"{path}: not an HDF5 file ({error.__class__.__name__}); name the results file of a run")
    with f:
        fmt = text_attr(f.attrs, "format")
        needed = ("status", "attempts", "rank", "start", "end", "exit_code")
        if not fmt.startswith("shardrun-results/") or "tasks" not in f or any(c not in f["tasks"] for c in needed):
            raise BadInput(f"{path}: not a shardrun results file (format '{fmt or 'none'}'); "
                           "name the output.path of a job, e.g. results/heat-sweep.h5")
        run = {c: f["tasks"][c][:] for c in needed}
        run["host"] = [h.decode() if isinstance(h, bytes) else str(h) for h in f["tasks/host"][:]] \
            if "host" in f["tasks"] else [""] * len(run["status"])
        run["job"], run["path"] = text_attr(f.attrs, "job_name", os.path.basename(path)), path
        run["created"] = text_attr(f.attrs, "created")
        run["complete"] = bool(f.attrs.get("complete", False))
        run["world_size"] = int(f.attrs.get("world_size", int(run["rank"].max(initial=-1)) + 1))
        run["array_count"] = int(f.attrs.get("array_count", 1))
    run["element"] = element_of(len(run["status"]), run["array_count"])
    return run


def element_of(task_count, array_count):
    """Array element of every task id: element a takes a contiguous block, the first T % A one more."""
    import numpy as np

    base, extra = divmod(task_count, max(array_count, 1))
    sizes = [base + (1 if a < extra else 0) for a in range(max(array_count, 1))]
    return np.repeat(np.arange(len(sizes)), sizes)


def lanes(run, drawn):
    """Rows of the Gantt chart: one per (element, rank), split into sub-rows where tasks overlap
    (slots_per_rank > 1). Returns ({key: [sub-row of each task]}, [keys in order])."""
    rows = {}
    for i in drawn:
        rows.setdefault((int(run["element"][i]), int(run["rank"][i])), []).append(i)
    if run["array_count"] <= 1:
        for r in range(run["world_size"]):
            rows.setdefault((0, r), [])
    placed = {}
    for key, ids in rows.items():
        ends, slot_of = [], {}
        for i in sorted(ids, key=lambda i: run["start"][i]):
            free = [s for s, e in enumerate(ends) if e <= run["start"][i] + 1e-9]
            slot = free[0] if free else len(ends)
            ends[slot:slot + 1] = [run["end"][i]]
            slot_of[i] = slot
        placed[key] = (slot_of, max(len(ends), 1))
    return placed, sorted(rows)


def draw_timeline(ax, run, drawn, t0):
    from matplotlib.patches import Patch

    placed, keys = lanes(run, drawn)
    bars = {}  # (status, retried, y, height) -> [(x, width)]: one collection per lane and kind
    label_failed = sum(run["status"][drawn] == 2) <= 25 and len(keys) <= 64
    label_ids = len(drawn) <= 120 and len(keys) <= 16  # task ids inside the bars when they fit
    span = max(float(run["end"][drawn].max() - t0), 1e-6)
    for row, key in enumerate(keys):
        slot_of, slots = placed[key]
        height = 0.8 / slots
        for i, slot in slot_of.items():
            y = row - 0.4 + slot * height
            kind = (int(run["status"][i]), bool(run["attempts"][i] > 1), y, height)
            bars.setdefault(kind, []).append((run["start"][i] - t0, max(run["end"][i] - run["start"][i], 1e-6)))
            wide = (run["end"][i] - run["start"][i]) / span > (0.07 if run["status"][i] == 2 else 0.03)
            if label_failed and run["status"][i] == 2:
                text = f"#{i} exit {run['exit_code'][i]}"
                if wide:  # inside the bar, else after it on a white box
                    ax.text(run["start"][i] - t0 + span * 0.004, y + height / 2, text, va="center", fontsize=8,
                            color="white", fontweight="bold", clip_on=True)
                else:
                    ax.annotate(text, (run["end"][i] - t0, y + height / 2), xytext=(2, 0), textcoords="offset points",
                                va="center", fontsize=8, color=COLORS[2], fontweight="bold",
                                bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"), zorder=6)
            elif label_ids and wide and height >= 0.4:
                ax.text(run["start"][i] - t0 + span * 0.004, y + height / 2, f"#{i}", va="center", fontsize=7,
                        color="white", clip_on=True)
    median_width = sorted(w for segments in bars.values() for _, w in segments)[len(drawn) // 2]
    edge = 0.4 if len(drawn) < 2000 and median_width > span / 300 else 0  # white gaps unless bars are too thin
    for (status, retried, y, height), segments in bars.items():
        ax.broken_barh(segments, (y, height), facecolors=COLORS.get(status, "#cccccc"), edgecolor="white",
                       linewidth=edge, hatch="///" if retried else None)
    ax.set_ylim(len(keys) - 0.5, -0.5)
    step = max(1, len(keys) // 32)
    ax.set_yticks(range(0, len(keys), step))
    many = run["array_count"] > 1
    ax.set_yticklabels([f"a{e} r{r}" if many else str(r) for e, r in keys][::step])
    ax.set_ylabel("array element, rank" if many else "rank")
    ax.set_xlabel("seconds since the first task started")
    ax.set_xlim(0, span * 1.04)
    ax.set_title("Tasks per rank over time", loc="left", fontweight="bold")
    ax.grid(axis="x", alpha=0.3)
    counts = {s: int(sum(run["status"][drawn] == s)) for s in (1, 2, 3)}
    shown = (1, 2, 3) if counts[3] else (1, 2)  # ok and failed always, so "failed (0)" says none failed
    handles = [Patch(facecolor=COLORS[s], label=f"{STATUS_NAMES[s]} ({counts[s]})") for s in shown]
    retried = int(sum(run["attempts"][drawn] > 1))
    handles.append(Patch(facecolor="white", edgecolor="#333333", hatch="///",
                         label=f"retried: attempts > 1 ({retried})"))
    ax.legend(handles=handles, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(handles), fontsize=9,
              frameon=False)


def draw_durations(ax, run, drawn):
    import numpy as np

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


def draw_busy(ax, run, drawn):
    import numpy as np

    many = run["array_count"] > 1
    keys = sorted({(int(run["element"][i]), int(run["rank"][i])) for i in drawn} |
                  (set() if many else {(0, r) for r in range(run["world_size"])}))
    index = {k: n for n, k in enumerate(keys)}
    row = np.array([index[(int(run["element"][i]), int(run["rank"][i]))] for i in drawn], dtype=int)
    busy = np.bincount(row, weights=run["end"][drawn] - run["start"][drawn], minlength=len(keys))
    mean = float(busy.mean()) if len(busy) else 0.0
    # Each rank's wall span is its array element's: first task started to last task ended.
    element = run["element"][drawn]
    span_of = {e: float(run["end"][drawn][element == e].max() - run["start"][drawn][element == e].min())
               for e in set(int(v) for v in element)}
    slots = lanes(run, drawn)[0]  # tasks at once per rank (slots_per_rank)
    capacity = np.array([span_of.get(e, 0.0) * slots.get((e, r), ({}, 1))[1] for e, r in keys])
    width = 0.6 if len(keys) <= 64 else 1.0
    x = np.arange(len(keys))
    busy_bars = ax.bar(x, busy, color=COLORS[1], width=width, label="busy")
    idle_bars = ax.bar(x, np.maximum(capacity - busy, 0), bottom=busy, color="#DDDDDD", width=width, label="idle")
    mean_line = ax.axhline(mean, color="black", linestyle="--", linewidth=1, label=f"mean busy {mean:.3g} s")
    imbalance = float(busy.max()) / mean if mean > 0 else 1.0
    ax.set_ylim(0, max(float(capacity.max()), float(busy.max())) * 1.22)  # room for the legend
    ax.set_title(f"Busy time per rank (imbalance {imbalance:.2f} max/mean)", loc="left", fontweight="bold")
    step = -(-len(keys) // 16)
    ax.set_xticks(range(0, len(keys), step))
    ax.set_xticklabels([f"a{e}r{r}" if many else str(r) for e, r in keys][::step],
                       rotation=90 if many else 0, fontsize=8 if many else 10)
    ax.set_xlabel("array element, rank" if many else "rank")
    several = max(v[1] for v in slots.values()) > 1
    ax.set_ylabel("seconds: busy = sum of its task durations,\nidle = wall span" + (" x slots" if several else "")
                  + " - busy", fontsize=9)
    ax.legend(handles=[busy_bars, idle_bars, mean_line], fontsize=9, frameon=False, loc="upper right", ncol=3)
    ax.grid(axis="y", alpha=0.3)


def summary_line(run, drawn, t0):
    counts = {s: int(sum(run["status"] == s)) for s in STATUS_NAMES}
    span = float(run["end"][drawn].max() - t0) if len(drawn) else 0.0
    state = "complete" if run["complete"] else "NOT complete"
    return (f"{run['job']}: {len(run['status'])} tasks, {counts[1]} ok, {counts[2]} failed, {counts[3]} skipped, "
            f"{counts[0]} pending ({state}); {run['world_size']} ranks"
            + (f" x {run['array_count']} array elements" if run["array_count"] > 1 else "")
            + f"; {span:.3g} s from first start to last end")


def render(run, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    drawn = np.flatnonzero((run["status"] != 0) & (run["rank"] >= 0) & (run["start"] > 0)
                           & (run["end"] >= run["start"]))
    if len(drawn) == 0:
        raise BadInput(f"{run['path']}: no task has run yet (every task is pending): nothing to draw")
    t0 = float(run["start"][drawn].min())
    rows = len(lanes(run, drawn)[1])
    timeline_height = min(max(0.32 * rows, 2.6), 12)
    fig = plt.figure(figsize=(13, timeline_height + 5.2), dpi=100, layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=[timeline_height, 3.6])
    draw_timeline(fig.add_subplot(grid[0, :]), run, drawn, t0)
    draw_durations(fig.add_subplot(grid[1, 0]), run, drawn)
    draw_busy(fig.add_subplot(grid[1, 1]), run, drawn)
    summary = summary_line(run, drawn, t0)
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
                   f"<td>{run['end'][i] - run['start'][i]:.3f}</td></tr>" for i in failed[:200])
    more = f"<p>... and {len(failed) - 200} more failed tasks</p>" if len(failed) > 200 else ""
    table = (f"<h2>Failed tasks ({len(failed)})</h2><table><tr><th>task</th><th>rank</th><th>host</th>"
             f"<th>exit code</th><th>attempts</th><th>seconds</th></tr>{rows}</table>{more}") if failed else ""
    text = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>shardrun report: {html.escape(run['job'])}</title>
<style>body{{font-family:sans-serif;margin:2em}} img{{max-width:100%}} td,th{{padding:2px 10px;text-align:right}}
table{{border-collapse:collapse}} tr:nth-child(even){{background:#f2f2f2}}</style></head>
<body><h1>shardrun report: {html.escape(run['job'])}</h1>
<p>{html.escape(summary)}</p><p>results file: <code>{html.escape(os.path.abspath(run['path']))}</code>,
created {html.escape(run['created'])}</p>
<img alt="tasks per rank over time, task durations, busy time per rank" src="data:image/png;base64,{image}">
{table}</body></html>
"""
    with open(page, "w") as f:
        f.write(text)


def main(argv):
    args = parse_args(argv)
    try:
        import h5py  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise BadInput(f"needs Python 3 with h5py and matplotlib ({error}); on Debian/Ubuntu: "
                       "apt-get install python3-h5py python3-matplotlib")
    run = read_run(args.output)
    png = args.png or (args.output[:-3] if args.output.endswith(".h5") else args.output) + ".report.png"
    for target in filter(None, (png, args.html)):
        folder = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise BadInput(f"{target}: its folder {folder} does not exist or is not writable")
    summary = render(run, png)
    print(f"report: {png}")
    if args.html:
        write_html(run, png, args.html, summary)
        print(f"report: {args.html}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as error:
        print(f"shardrun: report: {error}", file=sys.stderr)
        sys.exit(2)
