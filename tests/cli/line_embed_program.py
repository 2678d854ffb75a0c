"""An "embedding" of line-input records for the line-input tests, in either exec mode: each record's
text becomes 4 float64 numbers (length, a checksum of its characters, its words, its first
character), computed from the record alone, so a single process over the whole file gives the
reference. Worker mode goes through shardrun.tasks() and task.records(); task mode through
shardrun.records() and shardrun.result(). The record is a dict (jsonl, csv: its `text`) or a str
(text lines). Also answers `n`, the task's record count.
"""
import os
import sys

import numpy as np

# This checkout's package (scripts/python), before any installed one.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "python"))
import shardrun  # noqa: E402


def embed(record):
    text = record["text"] if isinstance(record, dict) else record
    return [float(len(text)), float(sum(ord(c) * (i + 1) for i, c in enumerate(text)) % 100003),
            float(len(text.split())), float(ord(text[0]) if text else -1)]


def rows(records):
    return np.array([embed(r) for r in records], dtype=np.float64).reshape(len(records), 4)


if __name__ == "__main__":
    if os.environ.get("SHARDRUN_WORKER"):
        for task in shardrun.tasks():
            with task:
                records = task.records()
                task.done({"e": rows(records), "n": len(records)})
    else:
        records = shardrun.records()
        shardrun.result(e=rows(records), n=len(records))
