"""A slow node under the dynamic schedule (issue 36): four network-namespace hosts
(tests/cli/n_hosts.py, needs root), 8 ranks, 300 exec tasks, the last host's sleeping 1 s and
the others' instant: tests/cli/faults/slow_node_claims_test.py's job. The default claims (a node
that runs dry takes the unstarted ids of the node that will finish last) against `max_claim: 1`
(one task per claim, the best a slow node can get), interleaved in the same rounds, mpirun's
wall time each. Target: wall <= 1.3 x max_claim: 1's, i.e. ratio (its wall / ours) >= 0.77.
Before issue 36 the slow host ran its 17-id block: 12.3-18.4 s against 5.7-8.8 s."""
import os
import shutil
import sys
import time

from common import ROOT, Row, fill_timed_row, interleave

TARGET = 1 / 1.3
HOSTS, SLOTS = 4, 2


def rows(ctx):
    binary = ctx.binary("shardrun")
    os.environ.setdefault("SHARDRUN_BIN", binary)  # tests/cli/harness.py reads it when imported
    for folder in ("tests/cli", "tests/cli/faults"):
        sys.path.insert(0, os.path.join(ROOT, folder))
    from jobs import h5py_module, task_labels
    from n_hosts import NHosts
    import slow_node_claims_test as job_source

    row = Row("slow node: 300 exec tasks on 4 hosts x 2 ranks, one host's 1 s, dynamic vs max_claim: 1",
              target=f">= {TARGET:.2f} (wall <= 1.3 x)")
    if os.geteuid() != 0:
        return [row.error("needs root (network namespaces)")]
    slow_counts = {"dynamic": [], "max_claim: 1": []}
    try:
        with NHosts(HOSTS, slots=SLOTS) as hosts:
            slow = hosts.names[-1]

            def contender(name, schedule):
                def once():
                    work = ctx.scratch(f"slow-node-{'one' if '1' in name else 'dynamic'}")
                    job = job_source.slow_node_job(work, slow, schedule=schedule)
                    start = time.perf_counter()
                    proc = hosts.run_mpi(HOSTS * SLOTS, ["run", job, "-q"], timeout=600)
                    seconds = time.perf_counter() - start
                    if proc.returncode != 0:
                        raise RuntimeError(f"shardrun exited {proc.returncode}: {proc.stderr.strip()[-200:]}")
                    with h5py_module().File(os.path.join(work, "slow.h5"), "r") as f:
                        slow_counts[name].append(task_labels(f, "host").count(slow))
                    shutil.rmtree(work, ignore_errors=True)
                    return seconds
                return once

            ctx.log("  slow node, 300 exec tasks on 4 namespace hosts, one host's 1 s")
            times = interleave({"dynamic": contender("dynamic", "dynamic"),
                                "max_claim: 1": contender("max_claim: 1", "{kind: dynamic, max_claim: 1}")},
                               ctx.rounds, ctx.log)
    except Exception as why:  # the hosts could not be set up
        return [row.error(str(why))]
    ours, anchor = times["dynamic"], times["max_claim: 1"]
    if not fill_timed_row(row, ours, anchor, TARGET):
        return [row]
    row.note = (f"tasks on the slow host: {slow_counts['dynamic']} (dynamic), {slow_counts['max_claim: 1']} "
                f"(max_claim: 1)")
    row.figures["slow_host_tasks"] = slow_counts
    return [row]
