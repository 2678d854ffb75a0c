#!/usr/bin/env bash
# Claims per second and scheduling efficiency of the dynamic schedule (claims_bench) at 4 ranks,
# under (i) the default transports (osc/sm on one node) and (ii) osc/pt2pt over btl self,tcp,
# where the old MPI_Fetch_and_op counter failed; then the claim service's refill round trip
# against a bare MPI round trip to rank 0 (claim_service_bench, next to claims_bench) over
# shared memory and TCP. Builds nothing.
# Usage: benchmarks/runner/claims.sh [claims_bench binary] [claims_bench arguments...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bench=${1:-$root/build/benchmarks/runner/claims_bench}
shift || true
if [[ ! -x $bench ]]; then
  echo "claims.sh: no claims_bench at $bench (build it: cmake --build build --target claims_bench)" >&2
  exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "=== (i) default transports (osc/sm on one node): mpirun -np 4 --oversubscribe"
mpirun -np 4 --oversubscribe "$bench" "$@"
echo
echo "=== (ii) mpirun -np 4 --oversubscribe --mca osc pt2pt --mca btl self,tcp"
mpirun -np 4 --oversubscribe --mca osc pt2pt --mca btl self,tcp "$bench" "$@"

service=$(dirname "$bench")/claim_service_bench
if [[ -x $service ]]; then
  for btl in self,vader self,tcp; do
    echo
    echo "=== (iii) claim service round trip: mpirun -np 2 --mca btl $btl"
    mpirun -np 2 --mca btl "$btl" "$service" | grep -v '^RESULT '
  done
else
  echo "claims.sh: no claim_service_bench at $service (build it: cmake --build build --target claim_service_bench)" >&2
fi
