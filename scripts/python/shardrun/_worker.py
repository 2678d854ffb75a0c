"""Worker mode (`exec.mode: worker`): the ready line, one task per stdin line, answers on $SHARDRUN_ANSWER_FD.

    import shardrun
    model = load_model()                      # once per rank: the reason for worker mode
    for task in shardrun.tasks():             # sends the ready line, then one task per stdin line
        with task:                            # an exception fails this task only, the worker goes on
            start, end = task.range
            task.done({"embedding": model(rows[start:end])})   # or shardrun.result(embedding=...)

A task has task_id, task_count, params (dict, typed), range ((start, end) or None), attempt,
input (data.input, "file.h5:/dataset" or a line file's absolute path, or None), task_dir (a folder
reserved for it; shardrun does not create it), checkpoint_dir (kept through retries, drains and --resume;
shardrun.checkpoint_dir() makes it), records() (the range's records of a line-based input) and result_dir (a folder shardrun made for this task's <field>.npy files, or
None when the job declares no results). Results are the job's declared exec.results fields:
numbers, nested lists, NumPy arrays or torch tensors; a `rows` field gives end - start rows.
Arrays travel in the declared dtype as base64 bytes in the answer line ({"dtype", "shape",
"base64"}) or, from 16 KiB up, as result_dir/<field>.npy left out of the line (measured faster
there; SHARDRUN_ARRAY_TRANSPORT=npy or base64 forces one). Answers go to the file descriptor
$SHARDRUN_ANSWER_FD, so print() to stdout stays harmless (it lands in the rank's worker log).
"""
import base64
import json
import os
import sys
import threading
import traceback

from . import _current
from ._values import as_stored_array, declared_dtypes, plain, _is_numpy

_lock = threading.Lock()
_channel = None


_BINARY_DTYPES = ("float32", "float64", "int32", "int64", "bool")
# Arrays of at least this many bytes go as $result_dir/<field>.npy, smaller ones as base64 in the line.
_NPY_FROM_BYTES = 16 << 10


def _json_default(value):
    value = plain(value)  # torch tensors and NumPy scalars
    if not _is_numpy(value):
        return value
    # NumPy arrays of the declared dtypes travel as base64 bytes: no float printing or parsing.
    dtype = getattr(value, "dtype", None)
    if getattr(value, "ndim", 0) >= 1 and getattr(dtype, "name", None) in _BINARY_DTYPES and \
            dtype.byteorder in ("=", "<", "|") and sys.byteorder == "little":
        return {"dtype": dtype.name, "shape": list(value.shape),
                "base64": base64.b64encode(value.tobytes()).decode("ascii")}
    if hasattr(value, "tolist"):
        return value.tolist()  # other NumPy arrays and scalars, without importing NumPy
    raise TypeError(f"result of type {type(value).__name__} is not JSON serialisable")


def answer(message):
    """Writes one answer object as a line on $SHARDRUN_ANSWER_FD (thread-safe)."""
    global _channel
    line = json.dumps(message, default=_json_default, separators=(",", ":")) + "\n"
    with _lock:
        if _channel is None:
            fd = os.environ.get("SHARDRUN_ANSWER_FD")
            if fd is None:
                raise RuntimeError("shardrun.tasks(): $SHARDRUN_ANSWER_FD is not set; is this program run by shardrun "
                                   "(exec.mode: worker)? To run one task by hand: shardrun run JOB --task ID")
            try:
                _channel = os.fdopen(int(fd), "w", buffering=1, encoding="utf-8", closefd=False)
            except (OSError, ValueError) as error:
                raise RuntimeError(f"shardrun.tasks(): $SHARDRUN_ANSWER_FD={fd} is no open file descriptor ({error}); "
                                   "worker mode is started by shardrun (exec.mode: worker)") from None
        _channel.write(line)
        _channel.flush()


def _array_transport(array, result_dir):
    """"npy" or "base64" for a NumPy array answer (docs/workers.md, "Rows and .npy answers in worker mode": the measured choice)."""
    if not result_dir or getattr(array, "ndim", 0) < 1:
        return "base64"
    chosen = os.environ.get("SHARDRUN_ARRAY_TRANSPORT", "auto")
    if chosen in ("npy", "base64"):
        return chosen
    return "npy" if array.nbytes >= _NPY_FROM_BYTES else "base64"


def _save_npy(path, array):
    import numpy as np

    # The answer line follows the write, and shardrun reads the file only then: no temporary name needed.
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)


class Task:
    """One task read from stdin; answer it once with done() or fail()."""

    def __init__(self, request):
        self.task_id = request["task_id"]
        self.task_count = request.get("task_count")
        self.params = request.get("params") or {}
        self.range = tuple(request["range"]) if request.get("range") is not None else None
        self.attempt = request.get("attempt", 1)
        self.task_dir = request.get("task_dir")
        self.checkpoint_dir = request.get("checkpoint_dir")  # kept through retries, drains and --resume
        self.input = request.get("input")  # data.input ("file.h5:/dataset") when the job has one
        self.result_dir = request.get("result_dir")  # where <field>.npy may go (jobs with declared results)
        self.answered = False

    def records(self):
        """This task's records of data.input (a line or Parquet input), decoded: str, or dict per record."""
        from ._records import read_records

        if self.range is None:
            raise RuntimeError("task.records(): the job has no data: range")
        return read_records(self.input, *self.range)

    def done(self, results=None):
        """Reports success with the declared result fields ({} when the job declares none)."""
        declared = declared_dtypes()
        results = {name: plain(value) for name, value in (results or {}).items()}
        # Arrays in the declared dtype travel as bytes; a float64 array for a float32 field is cast here.
        results = {name: as_stored_array(name, v, declared) if _is_numpy(v) and name in declared else v
                   for name, v in results.items()}
        for name, value in list(results.items()):
            if _is_numpy(value) and name in declared and _array_transport(value, self.result_dir) == "npy":
                _save_npy(os.path.join(self.result_dir, name + ".npy"), value)
                del results[name]  # a field comes from one place: the file, not the answer line
        self._send({"task_id": self.task_id, "status": "ok", "results": results})

    def fail(self, message):
        """Reports failure; shardrun records it (retries apply) and sends the next task."""
        self._send({"task_id": self.task_id, "status": "failed", "message": str(message)})

    def _send(self, message):
        if self.answered:
            raise RuntimeError(f"task {self.task_id} was already answered")
        self.answered = True
        answer(message)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if error is not None and not self.answered and not isinstance(error, (KeyboardInterrupt, SystemExit)):
            # The answer carries one line; the whole traceback goes to the worker's log (stderr).
            print(f"task {self.task_id} failed:", file=sys.stderr)
            traceback.print_exception(kind, error, trace, file=sys.stderr)
            sys.stderr.flush()
            self.fail(f"{kind.__name__}: {error}")
            return True
        if error is None and not self.answered:
            self.fail("the worker finished the task without answering it")
        return False


def tasks(stream=None):
    """Sends the ready line, then yields a Task for every line on stdin until shardrun closes it."""
    stream = stream or sys.stdin.buffer
    answer({"ready": True})
    for line in stream:
        if not line.endswith(b"\n"):
            break  # a line cut short by a stop: shardrun no longer waits for its answer
        if line.strip():
            task = Task(json.loads(line))
            _current.task = task  # params() and result() inside the loop mean this task
            try:
                yield task
            finally:
                _current.task = None
