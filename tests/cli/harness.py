"""Shared helpers for the end-to-end CLI tests: run the real shardrun binary, under mpiexec when asked."""
import atexit
import os
import shutil
import subprocess
import tempfile

SHARDRUN = os.environ["SHARDRUN_BIN"]
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")
SOURCE_DIR = os.environ.get("SHARDRUN_SOURCE_DIR", os.getcwd())

# Variables a scheduler may have left in the test's own environment must not leak into the runs.
_SCHEDULER_PREFIXES = ("SLURM_", "AWS_BATCH_", "BATCH_TASK_", "PBS_", "LSB_")


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCHEDULER_PREFIXES)}
    env.update(extra or {})
    return env


def run(args, np=None, env=None, cwd=None, timeout=600, extra_mpi=()):
    """Runs shardrun with args; np=None runs it directly, otherwise under mpiexec -np N."""
    cmd = [SHARDRUN, *args]
    if np is not None:
        cmd = [MPIEXEC, "--oversubscribe", "-np", str(np), *extra_mpi, *cmd]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(env), cwd=cwd, timeout=timeout)
    return proc


_SCRATCH_DIRS = []


def _remove_scratch_dirs():
    for path in _SCRATCH_DIRS:
        shutil.rmtree(path, ignore_errors=True)


atexit.register(_remove_scratch_dirs)


def scratch_dir():
    """A fresh directory, removed when the test script exits (pass or fail)."""
    path = tempfile.mkdtemp(prefix="shardrun-test-")
    _SCRATCH_DIRS.append(path)
    return path
