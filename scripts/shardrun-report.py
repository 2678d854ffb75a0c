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
from shardrun_report_data import BadInput, model, open_results, read_run, stats  # noqa: E402
from shardrun_report_gpu import draw_gpu, gpu_stats, gpu_words, read_gpu  # noqa: E402
from shardrun_report_cost import cost_stats, cost_words, idle_lines, read_cost  # noqa: E402
from shardrun_report_panels import STATUS_NAMES, draw_busy, draw_durations, draw_timeline  # noqa: E402


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


def summary_line(run, m):
    counts = {s: int(sum(run["status"] == s)) for s in STATUS_NAMES}
    running = sum(end - begin for begin, end in m["runs"])
    state = "complete" if run["complete"] else "NOT complete"
    if run.get("running"):
        state = "running: {} of {} committed".format(*run["running"])
    runs = len(m["runs"])
    # shardrun writes `skipped` for no task (README, "Task states"): named only when an older file has some.
    skipped = f"{counts[3]} skipped, " if counts[3] else ""
    return (f"{run['job']}: {len(run['status'])} tasks, {counts[1]} ok, {counts[2]} failed, {skipped}"
            f"{counts[0]} pending ({state}); {run['world_size']} rank{'' if run['world_size'] == 1 else 's'}"
            + (f" x {run['array_count']} array elements" if run["array_count"] > 1 else "")
            + f"; {running:.3g} s from first start to last end"
            + (f" in {runs} runs (the time between them left out)" if runs > 1 else "")
            + startup_words(m) + gpu_words(run.get("gpu")) + cost_words(run.get("cost"))
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
        run["cost"] = read_cost(f, run)
    m = model(run, args.run_gap)
    png = args.png or (args.output[:-3] if args.output.endswith(".h5") else args.output) + ".report.png"
    for target in filter(None, (png, args.html, args.stats)):
        folder = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise BadInput(f"{target}: its folder {folder} does not exist or is not writable")
    summary = render(run, m, png)
    for line in run["quarantined"]:
        print(f"report: GPU out of the job: {line}")
    for line in idle_lines(run["cost"]):
        print(f"report: {line}")
    print(f"report: {png}")
    if args.html:
        write_html(run, png, args.html, summary)
        print(f"report: {args.html}")
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump(dict(stats(run, m), gpu=gpu_stats(run["gpu"]), cost=cost_stats(run["cost"]), quarantined=run["quarantined"]), f, indent=1)
        print(f"report: {args.stats}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as error:
        print(f"shardrun: report: {error}", file=sys.stderr)
        sys.exit(2)
