#!/usr/bin/env bash
# The coordinator at scale (issue 13, item 3): world rank 0's peak resident memory (VmHWM,
# through /usr/bin/time's %M on rank 0 alone) and the wall time of
#   plan     shardrun plan job.yaml --ranks 2                (one process)
#   run      mpirun -np 2 shardrun run job.yaml            (no-op tasks, a fresh output; includes
#            the commit of every segment and the master at the end)
#   resume   mpirun -np 2 shardrun run job.yaml --resume   (on the complete output: the resume scan)
#   status   shardrun status <output>                       (one process)
#   merge    shardrun merge <output>                        (one process: rebuilds the master from
#            the segments alone, so its time is the master's creation. Layout shards: a complete
#            run removed its segments (results stored once), so merge only checks that the master
#            is current and keeps it; the master's creation is then part of `run`)
#   copy     cat <sources> | dd of=copy conv=fsync          (the anchor of merge: a raw sequential
#            copy of the bytes the master consolidates, every segment and params.h5, or the
#            finished single file; no RSS. Layout shards: nothing is left to copy)
# for T = 1e3 ... 1e7 no-op tasks and both output layouts. Prints one table, the size of the
# output on disk, RSS(largest T) / RSS(1e5) per layout and step, and copy / merge wall time at
# every T (>= 0.8 is the target). Each step is capped at CAP seconds (timeout; the row then
# says so). Builds nothing; the anchors are RSS at 1e5 tasks and the raw copy.
#
# Usage: benchmarks/runner/coordinator_scale.sh [--quick] [--max-t T] [--json FILE]
#                                               [shardrun binary] [CAP seconds, default 300] [task counts...]
#   --quick        T = 1e3, 1e4, 1e5 and layout shards only (a minute or two)
#   --max-t T      drop task counts above T from the default list (1e3 1e4 1e5 1e6 1e7)
#   --json FILE    also writes every row as JSON lines {"tasks","layout","step","rss_mb","wall_s","output_mb"}
#   SHARDRUN_LAYOUTS="shards single" (default) picks the layouts.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
quick=0 max_t=0 json=
while (( $# )) && [[ $1 == --* ]]; do
  case $1 in
    --quick) quick=1; shift ;;
    --max-t) max_t=$2; shift 2 ;;
    --json) json=$2; shift 2 ;;
    *) echo "coordinator_scale.sh: unknown option $1 (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
bin=${1:-$root/build/shardrun}
cap=${2:-300}
shift $(( $# < 2 ? $# : 2 ))
counts=("$@")
if (( ! ${#counts[@]} )); then
  counts=(1000 10000 100000 1000000 10000000)
  (( quick )) && counts=(1000 10000 100000)
  if (( max_t > 0 )); then
    kept=()
    for t in "${counts[@]}"; do (( t <= max_t )) && kept+=("$t"); done
    counts=("${kept[@]}")
  fi
fi
default_layouts="shards single"
(( quick )) && default_layouts=shards
read -r -a layouts <<< "${SHARDRUN_LAYOUTS:-$default_layouts}"
if [[ ! -x $bin ]]; then
  echo "coordinator_scale.sh: no shardrun at $bin (build it: cmake --build build --target shardrun)" >&2
  exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/coordinator-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
[[ -n $json ]] && : > "$json"

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
  if (( rc != 0 )) || [[ $name != copy && ! -s $rss ]]; then echo "- failed($rc)"; tail -3 "$work/$name.log" >&2; return; fi
  local kb=0
  [[ $name != copy ]] && kb=$(tail -1 "$rss")
  awk -v kb="$kb" -v s="$start" -v e="$end" 'BEGIN { printf "%.1f %.2f\n", kb / 1024, e - s }'
}

# The raw sequential copy of every committed byte of the output (segments, or the single file).
raw_copy() {
  # layout single: the finished file is the master's only source; shards: every segment and params.h5.
  if [[ $2 == single ]]; then cat "$1"; else find "$1.shards" -name '*.h5' -type f -print0 | xargs -0 cat; fi |
    dd of="$work/copy.bin" bs=4M conv=fsync status=none
  rm -f "$work/copy.bin"
}
export -f raw_copy
export work

declare -A peak wall
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
    for s in plan run resume status merge copy; do
      case $s in
        plan)   r=$(step "$s" "$work/rank0.sh" "$work/$s.rss" "$bin" plan "$dir/job.yaml" --ranks 2) ;;
        run)    r=$(step "$s" mpirun -np 2 "$work/rank0.sh" "$work/$s.rss" "$bin" run "$dir/job.yaml" -q) ;;
        resume) r=$(step "$s" mpirun -np 2 "$work/rank0.sh" "$work/$s.rss" "$bin" run "$dir/job.yaml" --resume -q) ;;
        status) r=$(step "$s" "$work/rank0.sh" "$work/$s.rss" "$bin" status "$dir/out.h5") ;;
        merge)  r=$(step "$s" "$work/rank0.sh" "$work/$s.rss" "$bin" merge "$dir/out.h5") ;;
        copy)   r=$(step "$s" bash -c 'raw_copy "$1" "$2"' _ "$dir/out.h5" "$layout") ;;
      esac
      size=$(du -sm "$dir" | cut -f1)
      rss=${r% *}
      [[ $s == copy ]] && rss=-
      printf '%-9s %-7s %-7s %12s %9s %10s\n' "$t" "$layout" "$s" "$rss" "${r#* }" "$size"
      [[ -n $json ]] && printf '{"tasks": %s, "layout": "%s", "step": "%s", "rss_mb": "%s", "wall_s": "%s", "output_mb": %s}\n' \
        "$t" "$layout" "$s" "$rss" "${r#* }" "$size" >> "$json"
      peak[$layout.$s.$t]=$rss
      wall[$layout.$s.$t]=${r#* }
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
  for s in plan run resume status merge; do
    a=${peak[$layout.$s.100000]:--} b=${peak[$layout.$s.$largest]:--}
    if [[ $a != - && $b != - ]]; then
      awk -v a="$a" -v b="$b" -v l="$layout" -v s="$s" 'BEGIN { printf "  %-7s %-7s %9.1f MB / %9.1f MB = %6.2f\n", l, s, b, a, b / a }'
    else
      printf '  %-7s %-7s not measured (%s / %s)\n' "$layout" "$s" "$b" "$a"
    fi
  done
done
echo
echo "master creation (merge) against a raw sequential copy of the same bytes, copy s / merge s (target >= 0.8):"
for layout in "${layouts[@]}"; do
  for t in "${counts[@]}"; do
    m=${wall[$layout.merge.$t]:--} c=${wall[$layout.copy.$t]:--}
    if [[ $m != - && $c != - && $m != timeout && $c != timeout ]]; then
      awk -v m="$m" -v c="$c" -v l="$layout" -v t="$t" 'BEGIN { printf "  %-7s %-9s %8.2f s / %8.2f s = %5.2f\n", l, t, c, m, c / m }'
    fi
  done
done
