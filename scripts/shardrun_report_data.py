"""What `shardrun report` draws, without drawing it: the bars (one per attempt when the results
file has /attempts, else one per task from /tasks), the runs (a run, then each --resume), the
lanes (array element, rank) with their hosts, and busy/idle per lane. Needs h5py and NumPy only,
so the numbers can be checked (--stats) without matplotlib."""
import os

import numpy as np

STATUS_OK, STATUS_FAILED = 1, 2
ATTEMPT_COLUMNS = ("task", "attempt", "exit_code", "start", "end", "rank")
TASK_COLUMNS = ("status", "attempts", "rank", "start", "end", "exit_code")


class BadInput(Exception):
    """Exit 2 with one line: a missing or wrong file, an unwritable output folder."""


def text_attr(attrs, name, default=""):
    value = attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else str(value)


def texts(dataset):
    labels = dataset.attrs.get("labels")
    if labels is not None:
        # int32 codes whose texts are a label coordinate beside them (/tasks/host, device: io/README.md)
        labels = labels.decode() if isinstance(labels, bytes) else str(labels)
        names = texts(dataset.parent[labels])
        return [names[code] for code in dataset[:]]
    return [v.decode(errors="replace") if isinstance(v, bytes) else str(v) for v in dataset[:]]


def read_attempts(f):
    """/attempts as columns when it has the documented schema (equal-length 1-D datasets), else None."""
    if "attempts" not in f or not hasattr(f["attempts"], "keys"):
        return None
    group = f["attempts"]
    if any(c not in group for c in ATTEMPT_COLUMNS):
        return None
    columns = {c: group[c][:] for c in ATTEMPT_COLUMNS}
    columns["message"] = texts(group["message"]) if "message" in group else [""] * len(columns["task"])
    # Attempts a drain, stop or time limit cut short (files written before this column have none).
    count = len(columns["task"])
    columns["interrupted"] = group["interrupted"][:].astype(bool) if "interrupted" in group else np.zeros(count, bool)
    if len({len(v) for v in columns.values()}) != 1:
        return None
    return columns


def open_results(path):
    import h5py

    if not os.path.exists(path):
        if os.path.isdir(path + ".shards"):
            raise BadInput(f"{path}: not merged yet (only {path}.shards/ exists): run shardrun merge {path} first")
        raise BadInput(f"{path}: no such file")
    try:
        return h5py.File(path, "r")
    except OSError as error:
        raise BadInput(f"{path}: not an HDF5 file ({error.__class__.__name__}); name the results file of a run")


def read_run(path):
    """The columns of /tasks (and /attempts when there) and the root attributes the picture needs, checked."""
    with open_results(path) as f:
        fmt = text_attr(f.attrs, "format")
        if not fmt.startswith("shardrun-results/") or "tasks" not in f or any(c not in f["tasks"] for c in TASK_COLUMNS):
            raise BadInput(f"{path}: not a shardrun results file (format '{fmt or 'none'}'); "
                           "name the output.path of a job, e.g. results/heat-sweep.h5")
        run = {c: f["tasks"][c][:] for c in TASK_COLUMNS}
        count = len(run["status"])
        run["host"] = texts(f["tasks/host"]) if "host" in f["tasks"] else [""] * count
        run["message"] = texts(f["tasks/message"]) if "message" in f["tasks"] else [""] * count
        run["attempt_rows"] = read_attempts(f)
        run["job"], run["path"] = text_attr(f.attrs, "job_name", os.path.basename(path)), path
        run["created"] = text_attr(f.attrs, "created")
        run["complete"] = bool(f.attrs.get("complete", False))
        run["world_size"] = int(f.attrs.get("world_size", int(run["rank"].max(initial=-1)) + 1))
        run["array_count"] = int(f.attrs.get("array_count", 1))
        # GPUs the run quarantined (issue 26): one line each, naming device, UUID, host and evidence.
        run["quarantined"] = [q.decode() if isinstance(q, bytes) else str(q) for q in f.attrs.get("quarantined", [])]
        run["startup"] = read_startup(f)
    run["element"] = element_of(count, run["array_count"])
    return run


def read_startup(f):
    """(array element, rank) -> worker start-up seconds, from /ranks (files written before it: none)."""
    group = f.get("ranks")
    if group is None or any(c not in group for c in ("array_index", "rank", "startup_seconds")):
        return {}
    return {(int(a), int(r)): float(s) for a, r, s in
            zip(group["array_index"][:], group["rank"][:], group["startup_seconds"][:])}


def element_of(task_count, array_count):
    """Array element of every task id: element a takes a contiguous block, the first T % A one more."""
    base, extra = divmod(task_count, max(array_count, 1))
    sizes = [base + (1 if a < extra else 0) for a in range(max(array_count, 1))]
    return np.repeat(np.arange(len(sizes)), sizes)


def bars_from_attempts(run, rows):
    """One bar per attempt. An attempt is ok when it is the last attempt of a task whose status is
    ok; an interrupted one (a drain, stop or time limit cut it short) is neither ok nor failed;
    every other attempt failed (a retry followed it, or the task failed)."""
    task = rows["task"].astype(np.int64)
    attempt = rows["attempt"].astype(np.int64)
    last = {}
    for t, a in zip(task, attempt):
        last[int(t)] = max(last.get(int(t), 0), int(a))
    ok = np.array([run["status"][t] == STATUS_OK and a == last[int(t)] for t, a in zip(task, attempt)], dtype=bool)
    final = np.array([a == last[int(t)] for t, a in zip(task, attempt)], dtype=bool)
    keep = (rows["start"] > 0) & (rows["end"] >= rows["start"]) & (rows["rank"] >= 0) & (task < len(run["status"]))
    return {"task": task[keep], "attempt": attempt[keep], "rank": rows["rank"][keep].astype(np.int64),
            "start": rows["start"][keep].astype(float), "end": rows["end"][keep].astype(float),
            "failed": ~ok[keep] & ~rows["interrupted"][keep], "interrupted": rows["interrupted"][keep],
            "final": final[keep], "exit_code": rows["exit_code"][keep].astype(np.int64),
            "retried": np.zeros(int(keep.sum()), dtype=bool)}


def bars_from_tasks(run):
    """One bar per task that ran, first attempt's start to last attempt's end (no /attempts)."""
    drawn = np.flatnonzero((run["status"] != 0) & (run["rank"] >= 0) & (run["start"] > 0)
                           & (run["end"] >= run["start"]))
    return {"task": drawn.astype(np.int64), "attempt": run["attempts"][drawn].astype(np.int64),
            "rank": run["rank"][drawn].astype(np.int64), "start": run["start"][drawn].astype(float),
            "end": run["end"][drawn].astype(float), "failed": run["status"][drawn] == STATUS_FAILED,
            "interrupted": np.zeros(len(drawn), dtype=bool),
            "final": np.ones(len(drawn), dtype=bool), "exit_code": run["exit_code"][drawn].astype(np.int64),
            "retried": run["attempts"][drawn] > 1}


def bars_of(run):
    """The bars to draw and where they come from ("attempts" or "tasks")."""
    rows = run["attempt_rows"]
    bars, source = (bars_from_attempts(run, rows), "attempts") if rows is not None else (bars_from_tasks(run), "tasks")
    bars["element"] = run["element"][bars["task"]] if len(bars["task"]) else np.zeros(0, dtype=np.int64)
    return bars, source


def runs_of(starts, ends, gap, interrupted=None):
    """The runs: [begin, end] windows of task activity, split where nothing ran for more than `gap`
    seconds. The file records no run boundaries, so a --resume is seen as such a gap; and where a
    window holds an `interrupted` attempt (a drain or stop ends a run; no task starts after it in
    that run), the next attempt to start after everything in it ended begins the next run."""
    if interrupted is None:
        interrupted = np.zeros(len(starts), dtype=bool)
    windows, drained = [], False
    for begin, end, cut in sorted(zip(starts.tolist(), ends.tolist(), interrupted.tolist())):
        if windows and (begin - windows[-1][1] <= gap) and not (drained and begin > windows[-1][1]):
            windows[-1][1] = max(windows[-1][1], end)
            drained = drained or cut
        else:
            windows.append([begin, end])
            drained = cut
    return windows


def lane_keys(run, bars):
    """Rows of the chart, (element, rank) in order; every rank of a one-element run, busy or not."""
    keys = {(int(e), int(r)) for e, r in zip(bars["element"], bars["rank"])}
    if run["array_count"] <= 1:
        keys |= {(0, r) for r in range(run["world_size"])}
    return sorted(keys)


def lane_hosts(run):
    """(element, rank) -> the host /tasks records for that rank's tasks (the most frequent)."""
    counts = {}
    for i in np.flatnonzero(run["rank"] >= 0):
        host = run["host"][i]
        if host:
            per = counts.setdefault((int(run["element"][i]), int(run["rank"][i])), {})
            per[host] = per.get(host, 0) + 1
    return {key: max(per, key=per.get) for key, per in counts.items()}


def lane_label(run, key, hosts):
    """`r3 (node-b)`, with `a1 ` in front for an array job; no parentheses when no host is known."""
    element, rank = key
    host = hosts.get(key)
    return ("a{} ".format(element) if run["array_count"] > 1 else "") + f"r{rank}" + (f" ({host})" if host else "")


def slots_of(bars, key):
    """Bars that overlap in time on one lane (slots_per_rank > 1): the sub-row of each, and how many."""
    ends, slot_of = [], {}
    mine = np.flatnonzero((bars["element"] == key[0]) & (bars["rank"] == key[1]))
    for i in sorted(mine, key=lambda i: bars["start"][i]):
        free = [s for s, e in enumerate(ends) if e <= bars["start"][i] + 1e-9]
        slot = free[0] if free else len(ends)
        ends[slot:slot + 1] = [bars["end"][i]]
        slot_of[int(i)] = slot
    return slot_of, max(len(ends), 1)


def busy_idle(run, bars, keys, gap):
    """Per lane: busy = the time its bars cover; capacity = the spans of its element's runs x its slots
    (the time between runs left out); idle = capacity - busy. Every lane is counted as present in
    every run of its element: the file does not record which ranks each run had."""
    busy, capacity = [], []
    for key in keys:
        on_lane = (bars["element"] == key[0]) & (bars["rank"] == key[1])
        busy.append(float((bars["end"][on_lane] - bars["start"][on_lane]).sum()))
        of_element = bars["element"] == key[0]
        windows = runs_of(bars["start"][of_element], bars["end"][of_element], gap, bars["interrupted"][of_element])
        capacity.append(sum(end - begin for begin, end in windows) * slots_of(bars, key)[1])
    busy, capacity = np.array(busy), np.array(capacity)
    return busy, np.maximum(capacity - busy, 0.0)


def model(run, gap):
    """Everything the picture and --stats show, computed once."""
    bars, source = bars_of(run)
    if len(bars["task"]) == 0:
        raise BadInput(f"{run['path']}: no task has run yet (every task is pending): nothing to draw")
    keys = lane_keys(run, bars)
    hosts = lane_hosts(run)
    busy, idle = busy_idle(run, bars, keys, gap)
    startup = np.array([run.get("startup", {}).get(key, 0.0) for key in keys], dtype=float)
    mean = float(busy.mean()) if len(busy) else 0.0
    return {"bars": bars, "source": source, "keys": keys, "labels": [lane_label(run, k, hosts) for k in keys],
            "runs": runs_of(bars["start"], bars["end"], gap, bars["interrupted"]), "busy": busy, "idle": idle, "mean_busy": mean,
            "imbalance": float(busy.max()) / mean if mean > 0 else 1.0, "gap": gap, "startup": startup}


def stats(run, m):
    """The numbers behind the picture, for scripts and tests (report --stats FILE)."""
    bars = m["bars"]
    return {"source": m["source"], "bars": int(len(bars["task"])), "failed_bars": int(bars["failed"].sum()),
            "interrupted_bars": int(bars["interrupted"].sum()),
            "breaks_after_interruption": after_interruption(m),
            "run_gap_seconds": m["gap"], "runs": [{"start": b, "end": e} for b, e in m["runs"]],
            "resumes": len(m["runs"]) - 1,
            "lanes": [{"label": label, "busy": float(b), "idle": float(i), "startup_seconds": float(u)}
                      for label, b, i, u in zip(m["labels"], m["busy"], m["idle"], m["startup"])],
            "imbalance": m["imbalance"],
            "running": ({"committed": run["running"][0], "tasks": run["running"][1]} if run.get("running") else None)}


def after_interruption(m):
    """Per break between runs: whether the run before it ended with an interrupted attempt (a drain
    then a requeue or resume, not a run started again by hand after it ended)."""
    bars, runs = m["bars"], m["runs"]
    flags = []
    for before in runs[:-1]:
        cut = bars["interrupted"] & (bars["end"] >= before[0]) & (bars["end"] <= before[1])
        flags.append(bool(cut.any()))
    return flags


def time_axis(runs):
    """Maps Unix seconds to the chart's x: seconds since the first start with the time between runs
    cut out, each cut drawn as a narrow break (2 % of the running time). Returns (x_of, breaks): breaks
    are (x where the next run starts, the pause in seconds, its width on the chart) at each resume."""
    running = sum(end - begin for begin, end in runs) or 1e-6
    offsets, breaks, cut = [], [], 0.0
    for n, (begin, end) in enumerate(runs):
        if n:
            pause = begin - runs[n - 1][1]
            cut += pause - min(running * 0.02, pause)
            breaks.append((begin - runs[0][0] - cut, pause, min(running * 0.02, pause)))
        offsets.append((begin, cut))

    def x_of(t):
        t = np.asarray(t, dtype=float)
        shift = np.zeros_like(t)
        for begin, removed in offsets:
            shift = np.where(t >= begin, removed, shift)
        return t - runs[0][0] - shift

    return x_of, breaks


def duration_words(seconds):
    """A pause as people say it: 42 s, 3.5 min, 2.1 h, 1.5 d."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.2g} {unit}"
    return f"{seconds:.2g} s"
