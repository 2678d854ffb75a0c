#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded number of inputs (ctest, see CMakeLists.txt).
# Usage: run_fuzzer.sh FUZZER ARTIFACT_DIR SEED_DIR...
# The *.yaml, *.yml and *.json files under each SEED_DIR seed a fresh corpus in a temporary
# directory (removed on exit); the fuzzer also runs there, so relative paths in its inputs
# (points_file) resolve inside it. A crashing input is kept in ARTIFACT_DIR: add it to
# tests/fuzz/regressions/<target>/ (named *.yaml or *.json) with the fix.
# SHARDRUN_FUZZ_RUNS and SHARDRUN_FUZZ_SEED change how many inputs and which random sequence
# (fixed by default, so that ctest is reproducible).
set -euo pipefail
fuzzer=$1 artifacts=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/shardrun-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/seeds" "$artifacts"
n=0
for dir in "$@"; do
  [[ -d "$dir" ]] || continue  # regressions/<target>/ exists once a finding has been fixed
  while IFS= read -r -d '' file; do
    n=$((n + 1))
    cp "$file" "$work/seeds/$n-$(basename "$file")"
  done < <(find "$dir" -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -print0)
done
echo "run_fuzzer: $n seed files from $*"
cd "$work"
# -max_total_time only caps a run on a very loaded machine; -runs is the bound that applies.
"$fuzzer" -runs="${SHARDRUN_FUZZ_RUNS:-50000}" -seed="${SHARDRUN_FUZZ_SEED:-1}" -max_len=4096 -timeout=20 \
  -rss_limit_mb=4096 -max_total_time=50 -print_final_stats=1 -artifact_prefix="$artifacts/" \
  "$work/corpus" "$work/seeds"
