"""Line-input staging (issue 37, point 1): the index shardrun builds once for a line input (record
offsets, each record checked) against `wc -l` of the same file, in interleaved rounds, medians.
Ours is `shardrun plan` of a job whose data.input is the file with its index removed first, so every
round scans the whole file (plan adds its start-up and the job's parsing, a few ms); the anchor is
`wc -l`, which only counts newlines. Both read the file from the page cache after the first round.
Two files: text lines (offsets only) and JSON Lines (each line parsed as JSON too), 400 MB each
(40 MB with --quick). Ratio = wc -l's time / ours; target >= 0.5."""
import json
import os

from common import Row, interleave, median, ratio_of_rounds, run

JOB = "name: lines-bench\ntask: exec\ndata: {{input: \"{input}\", chunk: 4096}}\nexec:\n  argv: [\"true\"]\n"


def _write_file(path, megabytes, jsonl):
    line_no = 0
    with open(path, "w") as f:
        while f.tell() < megabytes << 20:
            lines = []
            for _ in range(10000):
                text = f"record {line_no} of the benchmark, with some words to make a line of ordinary length"
                lines.append(json.dumps({"id": line_no, "text": text, "label": line_no % 7}) if jsonl else text)
                line_no += 1
            f.write("\n".join(lines) + "\n")
    return line_no


def rows(ctx):
    binary = ctx.binary("shardrun")
    work = ctx.scratch("line_input")
    megabytes = 40 if ctx.quick else 400
    out = []
    for kind, suffix in (("text", "txt"), ("JSON Lines", "jsonl")):
        path = os.path.join(work, f"lines.{suffix}")
        lines = _write_file(path, megabytes, suffix == "jsonl")
        job = os.path.join(work, f"{suffix}.yaml")
        with open(job, "w") as f:
            f.write(JOB.format(input=path))

        def index():
            if os.path.exists(path + ".shardrun-index"):
                os.remove(path + ".shardrun-index")
            return run([binary, "plan", job], cwd=work)[0]

        def wc():
            return run(["wc", "-l", path])[0]

        times = interleave({"index": index, "wc": wc}, ctx.rounds, ctx.log)
        row = Row(f"line_input: index build of {megabytes} MB of {kind} ({lines} lines) vs wc -l", target=">= 0.5 x")
        failed = next((t for t in times.values() if isinstance(t, str)), None)
        if failed is not None:
            out.append(row.error(failed))
            continue
        row.ours, row.anchor = f"{median(times['index']):.3f} s", f"{median(times['wc']):.3f} s"
        row.ratio = ratio_of_rounds(times["index"], times["wc"])
        row.met = row.ratio >= 0.5
        row.figures = {"index_s": times["index"], "wc_s": times["wc"], "bytes": os.path.getsize(path)}
        out.append(row)
        os.remove(path)
    return out
