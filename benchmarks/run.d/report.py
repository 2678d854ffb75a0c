"""The output of benchmarks/run: the printed table, its Markdown twin and the machine record."""
import dataclasses
import os
import platform
import subprocess

from common import ROOT

COLUMNS = ("benchmark", "ours", "anchor", "ratio", "target", "met?")


def _cells(row):
    ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
    met = "-" if row.met is None else ("yes" if row.met else "NO")
    ours = row.ours if len(row.ours) <= 90 else row.ours[:87] + "..."   # the JSON keeps it whole
    return (row.benchmark, ours, row.anchor or "-", ratio, row.target or "-", met)


def table(rows):
    cells = [COLUMNS] + [_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    lines = ["  ".join(c[i].ljust(widths[i]) for i in range(len(COLUMNS))).rstrip() for c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"  {r.benchmark}: {r.note}" for r in rows if r.note]
    return "\n".join(lines + (["notes:"] + notes if notes else []))


def markdown(rows, document):
    m = document["machine"]
    head = (f"benchmarks/run ({document['mode']}, {document['rounds']} rounds), {document['date']}, "
            f"{document['host']}: {m['cpu']} x {m['cpus']}, {m['memory_gib']} GiB, load {m['load_before'][0]:.1f} "
            f"before / {m['load_after'][0]:.1f} after, scratch on {m['scratch_fs']}, revision {document['revision']}\n\n")
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in _cells(r)) + " |" for r in rows]
    notes = [f"- {r.benchmark}: {r.note}" for r in rows if r.note]
    return head + "\n".join(lines) + "\n" + ("\n" + "\n".join(notes) + "\n" if notes else "")


def as_dict(row):
    return dataclasses.asdict(row)


def _first(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=30).stdout
        return out.strip().splitlines()[0] if out.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine(scratch_fs):
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        memory_kib = int(f.readline().split()[1])
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory_gib": round(memory_kib / 2**20, 1),
            "kernel": platform.release(), "mpi": _first(["mpirun", "--version"]),
            "load_before": os.getloadavg(), "scratch_fs": scratch_fs}


def revision():
    rev = _first(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return rev + ("+changes" if dirty else "")
