"""Kernels: GEMM against a direct OpenBLAS call, blur and heat2d against a STREAM-style triad
(targets from benchmarks/README.md: >= 0.95 and >= 0.6). shardrun_kernels_bench holds every
contender; each round starts it once per contender (--benchmark_filter), the order rotating,
so the contenders are interleaved rather than run back to back as one Google Benchmark run."""
import json
import os

from common import Row, interleave, median, run


def _figure(binary, name, counter, min_time, work):
    # The program's own console reporter ignores --benchmark_format; the JSON goes to a file.
    out = os.path.join(work, "kernels.json")
    run([binary, f"--benchmark_filter=^{name}/", f"--benchmark_out={out}", "--benchmark_out_format=json",
         f"--benchmark_min_time={min_time}"], timeout=600)
    with open(out) as f:
        runs = json.load(f)["benchmarks"]
    medians = [r for r in runs if r.get("aggregate_name") == "median"]
    values = [r[counter] for r in (medians or [r for r in runs if r.get("run_type") == "iteration"])]
    if not values:
        raise RuntimeError(f"{name}: no {counter} in the benchmark's output")
    return median(values)


def rows(ctx):
    binary = ctx.binary("benchmarks/kernels/shardrun_kernels_bench")
    n = 1000 if ctx.quick else 2000
    min_time = 0.1 if ctx.quick else 0.5
    work = ctx.scratch("kernels")
    ctx.log(f"  kernels (gemm n={n}, heat2d and blur 2048)")
    contenders = {
        "openblas": lambda: _figure(binary, f"gemm/openblas/{n}", "GFLOP/s", min_time, work),
        "gemm": lambda: _figure(binary, f"gemm/shardrun/{n}", "GFLOP/s", min_time, work),
        "triad": lambda: _figure(binary, "stream/triad", "GB/s", min_time, work),
        "heat2d": lambda: _figure(binary, "heat2d/2048", "GB/s", min_time, work),
        "blur": lambda: _figure(binary, "blur/2048", "GB/s", min_time, work),
    }
    got = interleave(contenders, ctx.rounds, ctx.log)
    specs = [(f"GEMM n={n} float32 vs OpenBLAS", "gemm", "openblas", "GFLOP/s", 0.95),
             ("heat2d 2048x2048 f64 vs STREAM triad", "heat2d", "triad", "GB/s", 0.6),
             ("blur 2x2048x2048 vs STREAM triad", "blur", "triad", "GB/s", 0.6)]
    out = []
    for title, ours_name, anchor_name, unit, target in specs:
        row = Row(title, target=f">= {target:g}")
        ours, anchor = got[ours_name], got[anchor_name]
        if isinstance(ours, str) or isinstance(anchor, str):
            out.append(row.error(ours if isinstance(ours, str) else f"anchor: {anchor}"))
            continue
        row.ours, row.anchor = f"{median(ours):.2f} {unit}", f"{median(anchor):.2f} {unit}"
        row.ratio = median([o / a for o, a in zip(ours, anchor)])   # rates: ours / anchor
        row.met = row.ratio >= target
        row.figures = {"ours": ours, "anchor": anchor, "unit": unit}
        out.append(row)
    return out
