"""records(): the current task's records of a line input (data.input: .txt, .jsonl, .csv, .parquet).

Text gives one str per line (without its newline), JSON Lines one dict per line, CSV one dict per
line keyed by the header's names (values are str, as Python's csv module reads them), Parquet one
dict per row. The record offsets come from the index shardrun stored beside the input when it was
staged (`<input>.shardrun-index`); without a current one the file is scanned here.
"""
import csv
import json
import os

from . import _current

_SUFFIXES = {".txt": "text", ".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}
_indexes = {}  # path -> (stamp, format, columns, offsets): a worker reads its input's index once


def _stamp(path):
    info = os.stat(path)
    return f"{info.st_size}:{info.st_mtime_ns}"


def _read_index(path):
    """(format, columns, offsets) from <path>.shardrun-index when it is current, else None."""
    try:
        with open(path + ".shardrun-index", "rb") as f:
            header = json.loads(f.readline())
            if header.get("shardrun_line_index") != 1 or header.get("stamp") != _stamp(path):
                return None
            body = f.read()
    except (OSError, ValueError):
        return None
    count = header["records"] + 1
    if len(body) != 8 * count:
        return None
    import array

    offsets = array.array("Q")
    offsets.frombytes(body)
    return header["format"], header.get("columns", []), offsets


def _scan(path, fmt):
    """The index shardrun would build, for a file without a current one."""
    offsets, columns = [], []
    with open(path, "rb") as f:
        if fmt == "csv":
            columns = next(csv.reader([f.readline().decode("utf-8").rstrip("\r\n")]), [])
        at = f.tell()
        for line in f:
            offsets.append(at)
            at += len(line)
        offsets.append(at)
    return fmt, columns, offsets


def _index(path):
    stamp = _stamp(path)
    cached = _indexes.get(path)
    if cached and cached[0] == stamp:
        return cached[1:]
    found = _read_index(path)
    if found is None:
        suffix = os.path.splitext(path)[1]
        found = _scan(path, _SUFFIXES.get(suffix, "text"))
    _indexes[path] = (stamp,) + found
    return found


def _is_parquet(path):
    with open(path, "rb") as f:
        return f.read(4) == b"PAR1"  # Parquet's magic, for data.format: parquet without the suffix


def read_records(path, start, end):
    """Records [start, end) of the line or Parquet input `path`, decoded (see the module's doc)."""
    if path is None:
        raise RuntimeError("shardrun.records(): the job has no data.input")
    if ":/" in path and not os.path.exists(path):
        raise RuntimeError(f"shardrun.records(): data.input {path} is an HDF5 dataset; read it with h5py")
    if path.endswith(".parquet") or _is_parquet(path):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise RuntimeError("shardrun.records(): reading Parquet needs the Python package pyarrow (pip install pyarrow)")
        table = pq.read_table(path)
        return table.slice(start, end - start).to_pylist()
    fmt, columns, offsets = _index(path)
    with open(path, "rb") as f:
        f.seek(offsets[start])
        data = f.read(offsets[end] - offsets[start])
    lines = data.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last record
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    first_line = start + (2 if fmt == "csv" else 1)
    if fmt == "text":
        return lines
    records = []
    for k, line in enumerate(lines):
        try:
            if fmt == "jsonl":
                records.append(json.loads(line))
            else:
                values = next(csv.reader([line]))
                if len(values) != len(columns):
                    raise ValueError(f"{len(values)} fields where the header has {len(columns)}")
                records.append(dict(zip(columns, values)))
        except ValueError as error:
            raise ValueError(f"{path}:{first_line + k}: {error}") from None
    return records


def records():
    """The current task's records: its range [start, end) of data.input, in either mode."""
    task = _current.task
    if task is not None:
        if task.range is None:
            raise RuntimeError("shardrun.records(): the job has no data: range")
        return read_records(task.input, *task.range)
    start, end = os.environ.get("SHARDRUN_RANGE_START"), os.environ.get("SHARDRUN_RANGE_END")
    path = os.environ.get("SHARDRUN_INPUT")
    if os.environ.get("SHARDRUN_WORKER"):
        raise RuntimeError("shardrun.records(): no task is current; in worker mode use it inside `for task in shardrun.tasks()`")
    if path is None:
        raise RuntimeError("shardrun.records(): $SHARDRUN_INPUT is not set; does the job give data.input (and is this "
                           "program run by shardrun)?")
    if start is None or end is None:
        raise RuntimeError("shardrun.records(): $SHARDRUN_RANGE_START/_END are not set; is this program run by shardrun?")
    return read_records(path, int(start), int(end))
