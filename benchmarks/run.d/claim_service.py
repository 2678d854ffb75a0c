"""The claim service (issue 25, item 3): a refill round trip from a rank posing as its own node to
the service thread on world rank 0, against a bare MPI round trip to rank 0 of the same sizes
(rank 0's main thread answering in Open MPI's spinning receive, back to back), with rank 0's
main thread idle (asleep) and busy (a CPU-bound loop), over shared memory (btl self,vader) and
TCP (btl self,tcp). claim_service_bench interleaves the contenders in rounds and reports
medians; refills come back to back (a burst: the service still looking after its last answer)
and 2 ms apart (isolated: the service asleep when each comes, woken by its doorbell). Target:
refill <= 2 x the bare round trip, i.e. ratio (bare / refill) >= 0.5. Each row notes the
service of before the doorbell (naps of 20 us to 1 ms, SHARDRUN_CLAIM_DOORBELL=0) measured in
the same rounds, and isolated ones the floor of any wake-up on the machine (a thread asleep in
ppoll woken by a datagram, no MPI). One more row: rank 0's CPU while the service waits idle."""
from common import Row, mpi_env, run

TARGET = 0.5
TRANSPORTS = {"shm": ["--mca", "btl", "self,vader"], "tcp": ["--mca", "btl", "self,tcp"]}
GAPS = {0: "burst", 2000: "isolated (2 ms apart)"}


def _parse(text):
    """{(key, gap): (us, contender / bare)} from the RESULT lines; {name: share} from the CPU lines
    and {("floor", gap): us} from the FLOOR lines (a sleeping thread woken by a datagram, no MPI)."""
    results, cpu = {}, {}
    for line in text.splitlines():
        parts = line.split()
        if line.startswith("RESULT ") and len(parts) == 5:
            results[(parts[1], int(parts[2]))] = (float(parts[3]), float(parts[4]))
        elif line.startswith("FLOOR ") and len(parts) >= 3:
            cpu[("floor", int(parts[1]))] = float(parts[2])
        elif line.startswith("CPU "):
            name, share = line[4:].split(" of a core")[0].rsplit(None, 1)
            cpu[name.strip()] = float(share)
    return results, cpu


def rows(ctx):
    binary = ctx.binary("benchmarks/runner/claim_service_bench")
    requests, rounds = (50, 3) if ctx.quick else (200, max(ctx.rounds, 5))
    out, idle_cpu = [], None
    for transport, mca in TRANSPORTS.items():
        ctx.log(f"  claim service over {transport}")
        title = "claim service: refill vs bare MPI round trip to rank 0, {gap}, rank 0 {state}, " + transport
        try:
            _, text = run(["mpirun", "-np", "2", *mca, binary, str(requests), str(rounds), ",".join(map(str, GAPS))],
                          env=mpi_env(), timeout=600)
        except Exception as why:  # the other transport still runs
            out.append(Row(title.format(gap="all", state="idle/busy")).error(why))
            continue
        results, cpu = _parse(text)
        idle_cpu = idle_cpu or {k: v for k, v in cpu.items() if isinstance(k, str)}
        for gap, gap_name in GAPS.items():
            bare_us, _ = results.get(("bare", gap), (None, None))
            for state in ("idle", "busy"):
                row = Row(title.format(gap=gap_name, state=state), target=f">= {TARGET:.2f} (<= 2 x)")
                if ("doorbell_" + state, gap) not in results or bare_us is None:
                    out.append(row.error("no RESULT line (claim_service_bench's output changed?)"))
                    continue
                ours_us, ours_x = results[("doorbell_" + state, gap)]
                before_us, before_x = results.get(("naps_" + state, gap), (float("nan"), float("nan")))
                row.ours, row.anchor = f"{ours_us:.1f} us", f"{bare_us:.1f} us"
                row.ratio = 1 / ours_x
                row.met = row.ratio >= TARGET
                row.note = f"before (naps): {before_us:.1f} us, ratio {1 / before_x:.3f}"
                row.figures = {"refill_us": ours_us, "bare_us": bare_us, "before_us": before_us}
                if gap > 0 and ("floor", gap) in cpu:
                    # A service asleep when the refill comes pays the round trip and a wake-up at least.
                    floor = cpu[("floor", gap)]
                    row.note += (f"; a wake-up alone (no MPI): {floor:.1f} us, so a sleeping service reaches at most "
                                 f"{bare_us / (bare_us + floor):.3f}")
                    row.figures["bound"] = bare_us / (bare_us + floor)
                out.append(row)
    if idle_cpu:
        row = Row("claim service: rank 0's CPU while the service waits idle (1 s, shm)", target="no core taken (< 0.05)")
        share = idle_cpu.get("service, doorbell", float("nan"))
        row.ours = f"{share:.4f} of a core"
        row.anchor = f"{idle_cpu.get('no service (MPI alone)', float('nan')):.4f} (no service)"
        row.met = share < 0.05
        row.note = f"before (naps): {idle_cpu.get('service, naps (before)', float('nan')):.4f} of a core"
        row.figures = {"cpu_share": idle_cpu}
        out.append(row)
    return out
