"""The end of a run (issue 36, point 5): from the job's last task's end to the process's exit,
and each phase of it as `--progress json` reports it (wind_down, last_commit, master,
consolidation, teardown, mpi_finalize: README, "The end of a run"). 300 instant exec tasks
(`true`), dynamic schedule, at 2, 8 and 32 ranks on this one host (oversubscribed: 32 ranks on
this machine's cores measure a crowded end, not a wide one), and at 8 and 32 ranks on 4
network-namespace hosts (tests/cli/n_hosts.py; needs root, else those rows say why).
The last task's end is the latest `last_task_end` of the summary's ranks (Unix time, the same
clock as this script's on one machine); the exit is when mpirun returned here.
Target: < 0.5 s plus the master's write (measured in the same run: the anchor is that budget,
ratio = budget / ours, >= 1 met). Medians over the rounds. Each round also runs an MPI hello
world under the same mpirun (rank 0 prints the time after a barrier, then MPI_Finalize): its
MPI_Finalize to mpirun's exit is the floor no MPI program of that many ranks goes below, and
the note gives it beside ours, and ours above it less the master's write: shardrun's own share."""
import json
import os
import shutil
import subprocess
import sys
import time

from common import Row, median, mpi_env, run

TASKS = 300
BUDGET = 0.5
JOB = """name: run-end
task: exec
sweep: {{i: {{range: [0, {tasks}, 1]}}}}
schedule: dynamic
output: {{path: {work}/out/end.h5}}
exec:
  argv: [true]
"""
HELLO = r"""
#include <mpi.h>
#include <stdio.h>
#include <sys/time.h>
int main(int argc, char** argv)
{
    int rank;
    struct timeval now;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    gettimeofday(&now, NULL);
    if (rank == 0) printf("%.6f\n", now.tv_sec + now.tv_usec * 1e-6);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
"""
HOSTS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "cli")


def _once(cmd, env, work):
    """One run: (last task's end to mpirun's exit, {phase: seconds}, master bytes)."""
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    exited = time.time()
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    phases, summary = {}, None
    for line in proc.stdout.splitlines():
        if not line.startswith("{"):
            continue
        event = json.loads(line)
        if event.get("event") == "end_phase":
            phases[event["phase"]] = event["seconds"]
            if event.get("bytes"):
                phases["master_bytes"] = event["bytes"]
        elif event.get("event") == "summary":
            summary = event
    if summary is None:
        raise RuntimeError("no summary line in --progress json's output")
    last = max(r["last_task_end"] for r in summary["ranks"])
    shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
    return exited - last, phases


def _hello(ctx):
    work = ctx.scratch("run-end-hello")
    source, binary = os.path.join(work, "hello.c"), os.path.join(work, "hello")
    with open(source, "w") as f:
        f.write(HELLO)
    run(["mpicc", "-O2", "-o", binary, source])
    return binary


def _hello_once(cmd):
    """A bare MPI program's MPI_Finalize (after a barrier) to mpirun's exit, in seconds."""
    proc = subprocess.run(cmd, env=mpi_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    exited = time.time()
    if proc.returncode != 0:
        raise RuntimeError(f"hello exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return exited - float(proc.stdout.split()[0])


def _row(title, results):
    row = Row(title, target=f"< {BUDGET} s + master's write")
    if isinstance(results, str):
        return row.error(results)
    ends = [end for end, _, _ in results]
    master = median([p.get("master", 0.0) for _, p, _ in results])
    names = [n for n in results[0][1] if n != "master_bytes"]
    per_phase = {n: median([p.get(n, 0.0) for _, p, _ in results]) for n in names}
    ours = median(ends)
    row.ours, row.anchor = f"{ours:.3f} s", f"{BUDGET + master:.3f} s (0.5 s + master {master:.3f} s)"
    row.ratio = (BUDGET + master) / ours
    row.met = row.ratio >= 1
    row.note = "phases (medians): " + ", ".join(f"{n} {s:.3f} s" for n, s in per_phase.items())
    row.note += f"; after MPI_Finalize to mpirun's exit {ours - sum(per_phase.values()):.3f} s"
    floors = [f for _, _, f in results if f is not None]
    if floors:
        floor = median(floors)
        row.note += f"; an MPI hello world's MPI_Finalize to exit (the floor): {floor:.3f} s"
        # What bounds the row: the part no shardrun change can take off, and what is shardrun's own.
        row.note += (f"; ours above that floor {ours - floor:.3f} s, of which the master {master:.3f} s: "
                     f"{ours - floor - master:.3f} s against the 0.5 s budget")
    row.figures = {"end_s": ends, "phases": [p for _, p, _ in results], "hello_finalize_to_exit_s": floors}
    return row


def _rounds(ctx, name, cmd_of, rounds, hello_cmd=None):
    work = ctx.scratch(f"run-end-{name}")
    job = os.path.join(work, "job.yaml")
    with open(job, "w") as f:
        f.write(JOB.format(tasks=TASKS, work=work))
    results = []
    try:
        for r in range(rounds):
            end, phases = _once(cmd_of(job), mpi_env(), work)
            floor = _hello_once(hello_cmd) if hello_cmd else None
            results.append((end, phases, floor))
            ctx.log(f"    round {r + 1}: {name} {end:.3f} s" + (f", hello {floor:.3f} s" if floor is not None else ""))
    except Exception as why:  # the other rows still run
        return f"error: {why}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return results


def rows(ctx):
    binary = ctx.binary("shardrun")
    rounds = 2 if ctx.quick else max(ctx.rounds, 5)
    hello = _hello(ctx)
    out = []
    for np in (2, 8, 32):
        ctx.log(f"  end of a run, {np} ranks, 1 host")
        results = _rounds(ctx, f"np{np}", lambda job: ["mpirun", "-np", str(np), binary, "run", job, "--progress", "json"],
                          rounds, ["mpirun", "-np", str(np), hello])
        out.append(_row(f"end of a run: {TASKS} tasks' last end to exit, {np} ranks, 1 host", results))
    out += _hosts_rows(ctx, binary, hello, rounds)
    return out


def _hosts_rows(ctx, binary, hello, rounds):
    """8 and 32 ranks on 4 namespace hosts (2 and 8 slots each), when this runs as root."""
    titles = [f"end of a run: {TASKS} tasks' last end to exit, {np} ranks, 4 hosts" for np in (8, 32)]
    if os.geteuid() != 0:
        return [Row(t).error("skipped: namespace hosts need root") for t in titles]
    sys.path.insert(0, HOSTS_DIR)
    os.environ["SHARDRUN_BIN"] = binary  # the hosts module runs this build's shardrun
    from n_hosts import NHosts
    out = []
    for np, title in zip((8, 32), titles):
        ctx.log(f"  end of a run, {np} ranks, 4 hosts")
        try:
            with NHosts(4, slots=np // 4) as hosts:
                def cmd_of(job):
                    return hosts.mpirun_command(np, ["run", job, "--progress", "json"])
                hello_cmd = [*hosts.mpirun_command(np, [])[:-1], hello]  # the same mpirun, the hello instead
                results = _rounds(ctx, f"hosts-np{np}", cmd_of, rounds, hello_cmd)
        except Exception as why:
            results = f"error: {why}"
        out.append(_row(title, results))
    return out
