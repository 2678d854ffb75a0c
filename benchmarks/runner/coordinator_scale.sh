#!/usr/bin/env bash
# The coordinator at scale (issue 13, item 3; measurement only): world rank 0's peak resident
# memory (VmHWM, through /usr/bin/time's %M on rank 0 alone) and the wall time of
#   run      mpirun -np 2 shardrun run job.yaml            (no-op tasks, a fresh output)
#   resume   mpirun -np 2 shardrun run job.yaml --resume   (on the complete output: the resume scan)
#   status   shardrun status <output>                       (one process)
#   merge    shardrun merge <output>                        (one process: rebuilds the master; last,
#            because on layout single it leaves the output all pending, see benchmarks/README.md)
# for T = 1e3 ... 1e7 no-op tasks and both output layouts; prints one table, the size of the
# output on disk, and RSS(largest T) / RSS(1e5) per layout and step. Each step is capped at
# CAP seconds (timeout; the row then says so). Builds nothing; the anchor is RSS at 1e5 tasks.
# Usage: benchmarks/runner/coordinator_scale.sh [shardrun binary] [CAP seconds, default 300] [task counts...]
#   SHARDRUN_LAYOUTS="shards single" (default) picks the layouts.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/shardrun}
cap=${2:-300}
shift $(( $# < 2 ? $# : 2 ))
counts=("$@")
(( ${#counts[@]} )) || counts=(1000 10000 100000 1000000 10000000)
read -r -a layouts <<< "${SHARDRUN_LAYOUTS:-shards single}"
if [[ ! -x $bin ]]; then
  echo "coordinator_scale.sh: no shardrun at $bin (build it: cmake --build build --target shardrun)" >&2
  exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/coordinator-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Only world rank 0 runs under /usr/bin/time: its own peak, not the largest of all processes.
cat > "$work/rank0.sh" <<'WRAP'
#!/usr/bin/env bash
out=$1; shift
if [[ ${OMPI_COMM_WORLD_RANK:-0} == 0 ]]; then exec /usr/bin/time -f '%M' -o "$out" "$@"; fi
exec "$@"
WRAP
chmod +x "$work/rank0.sh"

# step NAME COMMAND...: runs it under the cap; prints "rss_mb wall_s" or "- timeout" / "- failed(rc)".
step() {
  local name=$1; shift
  local rss=$work/$name.rss start end rc=0
  rm -f "$rss"
  start=$(date +%s.%N)
  timeout --kill-after=10 "$cap" "$@" > "$work/$name.log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  if (( rc == 124 || rc == 137 )); then echo "- timeout"; return; fi
  if (( rc != 0 )) || [[ ! -s $rss ]]; then echo "- failed($rc)"; tail -3 "$work/$name.log" >&2; return; fi
  awk -v kb="$(tail -1 "$rss")" -v s="$start" -v e="$end" 'BEGIN { printf "%.1f %.2f\n", kb / 1024, e - s }'
}

declare -A peak
printf '%-9s %-7s %-7s %12s %9s %10s\n' tasks layout step "rank0 MB" "wall s" "output MB"
for layout in "${layouts[@]}"; do
  for t in "${counts[@]}"; do
    dir=$work/$layout-$t
    mkdir -p "$dir"
    cat > "$dir/job.yaml" <<JOB
name: coordinator-scale
task: noop
sweep: {i: {range: [0, $t, 1]}}
output: {path: $dir/out.h5, layout: $layout}
JOB
    for s in run resume status merge; do
      case $s in
        run)    r=$(step "$s" mpirun -np 2 "$work/rank0.sh" "$work/$s.rss" "$bin" run "$dir/job.yaml" -q) ;;
        resume) r=$(step "$s" mpirun -np 2 "$work/rank0.sh" "$work/$s.rss" "$bin" run "$dir/job.yaml" --resume -q) ;;
        merge)  r=$(step "$s" "$work/rank0.sh" "$work/$s.rss" "$bin" merge "$dir/out.h5") ;;
        status) r=$(step "$s" "$work/rank0.sh" "$work/$s.rss" "$bin" status "$dir/out.h5") ;;
      esac
      size=$(du -sm "$dir" | cut -f1)
      printf '%-9s %-7s %-7s %12s %9s %10s\n' "$t" "$layout" "$s" "${r% *}" "${r#* }" "$size"
      peak[$layout.$s.$t]=${r% *}
      # A step that did not finish leaves nothing the later steps could measure.
      [[ $s == run && ${r% *} == - ]] && break
    done
    rm -rf "$dir"
  done
done

largest=${counts[-1]}
echo
echo "rank 0 peak RSS, T = $largest against T = 100000 (target at 1e7: <= 1.2 x plus the results' own size):"
for layout in "${layouts[@]}"; do
  for s in run resume status merge; do
    a=${peak[$layout.$s.100000]:--} b=${peak[$layout.$s.$largest]:--}
    if [[ $a != - && $b != - ]]; then
      awk -v a="$a" -v b="$b" -v l="$layout" -v s="$s" 'BEGIN { printf "  %-7s %-7s %9.1f MB / %9.1f MB = %6.2f\n", l, s, b, a, b / a }'
    else
      printf '  %-7s %-7s not measured (%s / %s)\n' "$layout" "$s" "$b" "$a"
    fi
  done
done
