"""Shared helpers for the end-to-end CLI tests: run the real shardrun binary, under mpiexec when asked."""
import atexit
import glob
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time

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


def scratch_dir(test=None):
    """A fresh directory, removed when `test` (a unittest.TestCase) ends, or without one when the
    test script exits (pass or fail): the one temp-folder helper of the CLI tests."""
    path = tempfile.mkdtemp(prefix="shardrun-test-")
    if test is not None:
        test.addCleanup(shutil.rmtree, path, ignore_errors=True)
    else:
        _SCRATCH_DIRS.append(path)
    return path


def task_stderr(output, limit=3):
    """The stderr of the first few exec tasks that wrote any, to show why a run failed."""
    texts = []
    for path in sorted(glob.glob(os.path.join(output + ".tasks", "**", "stderr"), recursive=True)):
        with open(path, errors="replace") as f:
            text = f.read().strip()
        if text:
            texts.append(f"{os.path.relpath(path, os.path.dirname(output))}: {text[-500:]}")
        if len(texts) == limit:
            break
    return "\n".join(texts)


def task_running(output, task, member=0):
    """True while a slot's running index (<output>.tasks/.scratch-<slot>.running, rewritten in
    place per task) names member `member` of task `task`: its first line task=<id>, its end line
    the same id (a '#' first byte: the slot is between tasks)."""
    for path in glob.glob(os.path.join(glob.escape(output + ".tasks"), ".scratch-*.running")):
        try:
            with open(path) as f:
                lines = f.read().split("\n")
        except OSError:
            continue
        fields = {}
        for line in lines:
            key, _, value = line.partition("=")
            fields.setdefault(key, value)
            if key == "end":
                break
        if (lines[0] == f"task={task}" and fields.get("end") == str(task)
                and fields.get("member") == str(member)):
            return True
    return False


def wait_for_task_running(output, task, seconds):
    """True once task `task` runs (task_running), False after `seconds`."""
    deadline = time.time() + seconds
    while not task_running(output, task) and time.time() < deadline:
        time.sleep(0.05)
    return task_running(output, task)


def rank_pid(job, rank, deadline):
    """The pid of the `shardrun run JOB` process that is MPI rank `rank`, waiting until `deadline`."""
    while time.time() < deadline:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/comm", "rb") as f:
                    if f.read().strip() == b"shardrun-guard":
                        continue  # the rank's orphan guard: a fork of it, with the rank's command line until it retitles itself
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read().split(b"\0")
                with open(f"/proc/{pid}/environ", "rb") as f:
                    environ = f.read().split(b"\0")
            except OSError:
                continue
            if cmdline[:2] == [SHARDRUN.encode(), b"run"] and job.encode() in cmdline and \
                    f"OMPI_COMM_WORLD_RANK={rank}".encode() in environ:
                return int(pid)
        time.sleep(0.05)
    raise AssertionError(f"rank {rank} of {job} never started")


def run_and_signal_rank(args, job, rank, sig, after, np=2, extra_mpi=()):
    """Runs `shardrun ARGS` under mpiexec -np NP (with EXTRA_MPI options, such as -q), sends `sig`
    to rank `rank` of `job` `after` seconds after it started, and waits for the job; returns
    (exit code, stdout, stderr)."""
    proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(np), *extra_mpi, SHARDRUN, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        pid = rank_pid(job, rank, time.time() + 30)
        time.sleep(after)
        os.kill(pid, sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def live_processes(read, matches):
    """Pids of live processes (zombies excluded) whose /proc/<pid>/<read> entries (split at NUL)
    satisfy `matches`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/{read}", "rb") as f:
                entries = f.read().split(b"\0")
            with open(f"/proc/{pid}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state != b"Z" and matches(entries):
            found.append(int(pid))
    return found


def kill_every_rank(job):
    """SIGKILL to every `shardrun run JOB` process at once: a lost node, no rank left to write anything."""
    import signal
    for pid in live_processes("cmdline", lambda c: c[:2] == [SHARDRUN.encode(), b"run"] and job.encode() in c):
        os.kill(pid, signal.SIGKILL)


def processes_with_env(entry_prefix):
    """Pids of live processes with an environment entry starting with `entry_prefix`."""
    needle = entry_prefix.encode()
    return live_processes("environ", lambda environ: any(entry.startswith(needle) for entry in environ))


def task_processes(work):
    """Pids of live processes started by exec tasks whose task folders are under `work`
    (they inherit SHARDRUN_TASK_DIR)."""
    return processes_with_env(f"SHARDRUN_TASK_DIR={work}")


def rank_processes(job):
    """Pids of live `shardrun run JOB` processes: the ranks (their orphan guards rewrite their
    command line to `shardrun-guard (...)` as they start, and end by themselves after their rank)."""
    return live_processes("cmdline", lambda cmdline: cmdline[:2] == [SHARDRUN.encode(), b"run"] and job.encode() in cmdline)


def wait_until_none(pids_of, seconds):
    """Waits up to `seconds` for pids_of() to be empty; returns the survivors."""
    deadline = time.time() + seconds
    while True:
        left = pids_of()
        if not left or time.time() >= deadline:
            return left
        time.sleep(0.1)


def wait_for_no_task_processes(work, seconds):
    """Waits up to `seconds` for every task process under `work` to be gone; returns the survivors."""
    return wait_until_none(lambda: task_processes(work), seconds)


def wait_for_no_ranks(job, seconds):
    """Waits up to `seconds` for every rank of `shardrun run JOB` to be gone; returns the survivors."""
    return wait_until_none(lambda: rank_processes(job), seconds)


def kill_task_processes(work):
    """Cleanup for a failing test: no process it started may outlive it."""
    import signal
    for pid in task_processes(work):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def status_json(out):
    """`shardrun status OUT --json`: its exit code and its report, or None when it printed none."""
    done = run(["status", out, "--json"])
    try:
        return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None
    except ValueError:
        return done.returncode, None


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def stored_result_files(out):
    """Every file under OUT.shards/ that holds results: segments, temporaries, single files, params."""
    files = glob.glob(os.path.join(out + ".shards", "a*", "r*", "*"))
    return files + glob.glob(os.path.join(out + ".shards", "a*", "*.h5"))


def progress_reaches(proc, deadline, holds):
    """Reads rank 0's `--progress json` lines from proc.stdout until a progress event for which
    holds(event) is true (True), or the output ends or the deadline passes (False)."""
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            return False
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "progress" and holds(event):
            return True
    return False
