"""A slow node under the dynamic schedule (issue 36): four network-namespace hosts
(tests/cli/n_hosts.py, needs root), 8 ranks, exec tasks, the last host's sleeping and the
others' instant: tests/cli/faults/slow_node_claims_test.py's job. Two cases of the issue: 300
tasks with the slow host's at 1 s, and 1,200 with them at 0.2 s. The default claims (a node that
runs dry takes the unstarted ids of the node that will finish last) against `max_claim: 1` (one
task per claim, the best a slow node can get), interleaved in the same rounds, mpirun's wall time
each. Target: wall <= 1.3 x max_claim: 1's, i.e. ratio (its wall / ours) >= 0.77.
Before issue 36 the slow host ran its 17-id block: 12.3-18.4 s against 5.7-8.8 s (300 x 1 s), and
8.00 / 7.84 s against 2.07 / 2.25 s (1,200 x 0.2 s)."""
import os
import shutil
import sys
import time

from common import ROOT, Row, fill_timed_row, interleave

TARGET = 1 / 1.3
HOSTS, SLOTS = 4, 2
CASES = ((300, 1.0), (1200, 0.2))  # (tasks, the slow host's seconds a task)


def rows(ctx):
    binary = ctx.binary("shardrun")
    os.environ.setdefault("SHARDRUN_BIN", binary)  # tests/cli/harness.py reads it when imported
    # NHosts.run_mpi passes this process's environment to mpirun, which refuses root without these
    # (ctest sets them for the tests; benchmarks/run must set them itself).
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for folder in ("tests/cli", "tests/cli/faults"):
        sys.path.insert(0, os.path.join(ROOT, folder))
    from n_hosts import NHosts

    rows_ = [Row(f"slow node: {tasks} exec tasks on 4 hosts x 2 ranks, one host's {seconds:g} s, dynamic vs max_claim: 1",
                 target=f">= {TARGET:.2f} (wall <= 1.3 x)") for tasks, seconds in CASES]
    if os.geteuid() != 0:
        return [row.error("needs root (network namespaces)") for row in rows_]
    try:
        with NHosts(HOSTS, slots=SLOTS) as hosts:
            for row, (tasks, seconds) in zip(rows_, CASES):
                _measure(ctx, hosts, row, tasks, seconds)
    except Exception as why:  # the hosts could not be set up
        return [row.error(str(why)) for row in rows_ if not row.ours]
    return rows_


def _measure(ctx, hosts, row, tasks, seconds):
    from jobs import h5py_module, task_labels
    import slow_node_claims_test as job_source

    slow = hosts.names[-1]
    slow_counts = {"dynamic": [], "max_claim: 1": []}

    def contender(name, schedule):
        def once():
            work = ctx.scratch(f"slow-node-{'one' if '1' in name else 'dynamic'}")
            job = job_source.slow_node_job(work, slow, schedule=schedule, tasks=tasks, seconds=seconds)
            start = time.perf_counter()
            proc = hosts.run_mpi(HOSTS * SLOTS, ["run", job, "-q"], timeout=600)
            wall = time.perf_counter() - start
            if proc.returncode != 0:
                # The first words that are not a banner's dashes (mpirun's refusals are boxed).
                words = " ".join(line for line in proc.stderr.splitlines() if line.strip("- "))
                raise RuntimeError(f"shardrun exited {proc.returncode}: {words[:300]}")
            with h5py_module().File(os.path.join(work, "slow.h5"), "r") as f:
                slow_counts[name].append(task_labels(f, "host").count(slow))
            shutil.rmtree(work, ignore_errors=True)
            return wall
        return once

    ctx.log(f"  slow node, {tasks} exec tasks on 4 namespace hosts, one host's {seconds:g} s")
    times = interleave({"dynamic": contender("dynamic", "dynamic"),
                        "max_claim: 1": contender("max_claim: 1", "{kind: dynamic, max_claim: 1}")},
                       ctx.rounds, ctx.log)
    if not fill_timed_row(row, times["dynamic"], times["max_claim: 1"], TARGET):
        return
    row.note = (f"tasks on the slow host: {slow_counts['dynamic']} (dynamic), {slow_counts['max_claim: 1']} "
                f"(max_claim: 1)")
    row.figures["slow_host_tasks"] = slow_counts
