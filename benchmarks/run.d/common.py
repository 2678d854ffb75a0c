"""What every benchmark driver of benchmarks/run shares: rows, rounds, timing, MPI settings."""
import dataclasses
import os
import shutil
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))


class Skip(Exception):
    """A contender that cannot run here; its row says why instead of a figure."""


@dataclasses.dataclass
class Row:
    benchmark: str
    ours: str = ""
    anchor: str = ""
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    figures: dict = dataclasses.field(default_factory=dict)

    def error(self, reason):
        reason = str(reason)
        reason = reason if reason.startswith(("error: ", "skipped: ")) else f"error: {reason}"
        self.ours, self.anchor, self.ratio, self.met = reason, "", None, None
        return self


@dataclasses.dataclass
class Context:
    """Where a driver finds binaries and writes scratch files, and how big a run is."""
    build: str
    work: str          # scratch on a disk file system (ext4 here), never tmpfs
    quick: bool
    rounds: int
    log: callable

    def binary(self, rel):
        path = os.path.join(self.build, rel)
        if not os.access(path, os.X_OK):
            raise FileNotFoundError(f"no {path} (build it: cmake --build {self.build} --target {os.path.basename(rel)})")
        return path

    def scratch(self, name):
        path = os.path.join(self.work, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path


def mpi_env(extra=None):
    # Open MPI refuses root without these; oversubscription lets -np 3 run on 2 cores.
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.update(extra or {})
    return env


def run(cmd, *, env=None, cwd=None, timeout=600, shell=False, input=None):
    """Runs cmd; returns (seconds, stdout). A failure raises with the command's last words."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, timeout=timeout, shell=shell, input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout or "").strip().splitlines()
        # An uncaught exception's what() says more than the backtrace that follows it.
        said = [l.strip() for l in lines if "what():" in l or "error" in l.lower()][:2] or lines[-2:]
        name = cmd if isinstance(cmd, str) else " ".join(os.path.basename(str(c)) for c in cmd[:3])
        raise RuntimeError(f"{name[:80]} exited {proc.returncode}: {' | '.join(said)}")
    return seconds, proc.stdout


def shardrun_job(ctx, folder, job_yaml, binary=None):
    """A contender that runs `job_yaml(work)` (the job file's text, given the scratch folder
    ctx.scratch(folder) it may write in) with `mpirun -np 2 shardrun run JOB -q`; each call
    returns its seconds and removes the folder. `binary`: another shardrun than the build's."""
    binary = binary or ctx.binary("shardrun")

    def once():
        work = ctx.scratch(folder)
        job = os.path.join(work, "job.yaml")
        with open(job, "w") as f:
            f.write(job_yaml(work))
        seconds, _ = run(["mpirun", "-np", "2", binary, "run", job, "-q"], env=mpi_env())
        shutil.rmtree(work, ignore_errors=True)
        return seconds
    return once


def interleave(contenders, rounds, log):
    """Runs every contender once per round, the order rotating each round so that none always
    goes first on a warm or cold machine. contenders: {name: callable() -> a figure (seconds, GB/s...)}.
    Returns {name: [seconds per round]}; a contender that fails or skips is dropped with its
    reason in {name: "error: ..."} and the others go on."""
    times = {name: [] for name in contenders}
    failed = {}
    names = list(contenders)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            if name in failed:
                continue
            try:
                times[name].append(contenders[name]())
                log(f"    round {r + 1}: {name} {times[name][-1]:.4g}")
            except Skip as why:
                failed[name] = f"skipped: {why}"
            except Exception as why:  # one failing contender must not stop the others
                failed[name] = f"error: {why}"
                log(f"    round {r + 1}: {name} {failed[name]}")
    return {name: (failed[name] if name in failed else t) for name, t in times.items()}


def median(values):
    return statistics.median(values)


def ratio_of_rounds(ours, anchor):
    """Median over rounds of anchor time / our time (> 1: shardrun faster)."""
    return median([a / o for a, o in zip(anchor, ours)])


def fill_timed_row(row, ours, anchor, target):
    """Sets row's figures from two lists of round times (a str: why a contender could not run):
    medians, ratio_of_rounds and whether it meets `target`. False when the row became an error."""
    for times in (ours, anchor):
        if isinstance(times, str):
            row.error(times)
            return False
    row.ours, row.anchor = f"{median(ours):.2f} s", f"{median(anchor):.2f} s"
    row.ratio = ratio_of_rounds(ours, anchor)
    row.met = row.ratio >= target
    row.figures = {"ours_s": ours, "anchor_s": anchor}
    return True


def sci(n):
    """1e+05 -> 1e5: task and rank counts in row titles."""
    mantissa, exponent = f"{n:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"

