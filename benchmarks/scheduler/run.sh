#!/usr/bin/env bash
# The scheduler-efficiency study of benchmarks/README.md ("Scheduler efficiency at scale,
# simulated"): R = 1e3, 1e4, 1e5 virtual ranks under every schedule, six workloads, and
# issue 25's heterogeneous ones (7-10: ranks of different speeds, durations that follow the id), and
# issue 36's lost node (11). Builds
# nothing. The T = 1000 x R workload draws 1e8 durations at R = 1e5 (0.8 GB; 10 minutes on the
# loaded 2-core development machine);
# --quick leaves it out.
# Usage: benchmarks/scheduler/run.sh [scheduler_sim binary] [--quick] [more scheduler_sim options...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sim=$root/build/benchmarks/scheduler/scheduler_sim
if [[ $# -gt 0 && $1 != --* ]]; then sim=$1; shift; fi
quick=0
if [[ ${1:-} == --quick ]]; then quick=1; shift; fi
if [[ ! -x $sim ]]; then
  echo "run.sh: no scheduler_sim at $sim (build it: cmake --build build --target scheduler_sim)" >&2
  exit 1
fi
ranks=(--ranks 1000 10000 100000)

echo "=== 1. heavy tail, T = 100 x R: log-normal, median 1 s, sigma 1, capped at 100 s"
"$sim" "${ranks[@]}" "$@"
echo "=== 2. the same law, T = 1000 x R"
if (( quick )); then
  "$sim" --ranks 1000 10000 --tasks-per-rank 1000 "$@"
else
  "$sim" "${ranks[@]}" --tasks-per-rank 1000 "$@"
fi
echo "=== 3. the same law, T = 100 x R, capped at 10 s"
"$sim" "${ranks[@]}" --cap 10 "$@"
echo "=== 4. log-normal, median 1 s, sigma 0.5, capped at 100 s, T = 100 x R"
"$sim" "${ranks[@]}" --shape 0.5 "$@"
echo "=== 5. Pareto, x_m 1 s, alpha 2.5, capped at 100 s, T = 100 x R"
"$sim" "${ranks[@]}" --law pareto "$@"
echo "=== 6. short tasks (claims cost most): log-normal, median 1 ms, sigma 1, capped at 100 ms, T = 100 x R"
"$sim" "${ranks[@]}" --scale 0.001 "$@"
echo "=== 7. one node 10 x slower: workload 3 on node 0's ranks at a tenth of the speed"
"$sim" "${ranks[@]}" --cap 10 --slow-node 10 --dynamic 1:0 "$@"
echo "=== 8. per-rank log-normal slowdown (median 1, sigma 0.5) on workload 3"
"$sim" "${ranks[@]}" --cap 10 --rank-sigma 0.5 --dynamic 1:0 "$@"
echo "=== 9. a size sweep: workload 3, task id of T x 100^(id/(T-1)) heavier (the heavy points last)"
"$sim" "${ranks[@]}" --cap 10 --sweep 100 --dynamic 1:0 "$@"
echo "=== 10. short tasks on one slow node: workload 6 with node 0 10 x slower"
"$sim" "${ranks[@]}" --scale 0.001 --slow-node 10 --dynamic 1:0 "$@"
echo "=== 11. one node stops answering: workload 3, node 3 silent from 50 s (the service gives it up after 10 s)"
"$sim" --ranks 1000 10000 --cap 10 --dead-node 3 --dead-at 50 --dynamic 1:0 "$@"
