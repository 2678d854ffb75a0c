# Sourced by scripts/gpu-check: the steps that run shardrun's own jobs on a real GPU and check
# what they wrote. Each is a function run_step calls in a fresh bash (so each is exported, and
# reads $shardrun, $examples and $work from the environment); each prints what it saw and
# returns non-zero when the results are not what a GPU must give.
gpu_job_steps=(gemm_kind_table check_auto_routing check_gpu_telemetry check_gpu_packing check_gpu_gpm check_gpu_energy check_gpu_admission)

# examples/gpu-vs-cpu.yaml (the gemm kind at three sizes on the CPU and the GPU), then its table.
gemm_kind_table() {
  "$shardrun" run "$examples/gpu-vs-cpu.yaml" --set output.path="$work/gpu-vs-cpu.h5" --force --progress plain &&
    "$shardrun" table "$work/gpu-vs-cpu.h5" --pivot device
}


# The gemm sweep of examples/gpu-auto-routing.yaml: n = 32 and 64 on the CPU, 2048 and 4096 on cuda:0.
check_auto_routing() {
  "$shardrun" run "$examples/gpu-auto-routing.yaml" --set output.path="$work/gpu-auto-routing.h5" --force --progress plain || return 1
  local table
  table=$("$shardrun" table "$work/gpu-auto-routing.h5" --columns n,device,seconds) || return 1
  echo "$table"
  grep -Eq '^ *[0-9]+ +32 +cpu ' <<<"$table" && grep -Eq '^ *[0-9]+ +64 +cpu ' <<<"$table" &&
    grep -Eq '^ *[0-9]+ +2048 +cuda:' <<<"$table" && grep -Eq '^ *[0-9]+ +4096 +cuda:' <<<"$table"
}


# Per-task telemetry from NVML (issue 26, point 2): examples/gpu-telemetry.yaml's two long gemm
# tasks. Every row must have memory in use, a busy GPU, a power (energy / seconds) an H100-class
# board can draw (energy over the task's wall time), a temperature, and no Xid. Then the same job without NVML: no gpu_* columns.
check_gpu_telemetry() {
  "$shardrun" info | grep -A3 '^telemetry' || true
  "$shardrun" run "$examples/gpu-telemetry.yaml" --set output.path="$work/gpu-telemetry.h5" --force --progress plain || return 1
  local table
  # start and end: the task's wall time (the gemm kind's own `seconds` result is the product alone).
  table=$("$shardrun" table "$work/gpu-telemetry.h5" --csv \
    --columns start,end,gpu_mem_peak,gpu_util_mean,gpu_util_peak,gpu_energy_j,gpu_temp_max,gpu_xid_events) || return 1
  echo "$table"
  # start and end print as ISO times (2026-11-26T07:09:45.986280Z): seconds of the day suffice here.
  awk -F, 'function clock(t) { split(substr(t, 12, 15), hms, ":"); return hms[1] * 3600 + hms[2] * 60 + hms[3] }
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { rows++
      wall = clock($col["end"]) - clock($col["start"]); if (wall < 0) wall += 86400
      watts = wall > 0 ? $col["gpu_energy_j"] / wall : 0
      if ($col["gpu_mem_peak"] < 100e6) { print "row " rows ": gpu_mem_peak " $col["gpu_mem_peak"] " < 100 MB"; bad = 1 }
      if ($col["gpu_util_peak"] < 50) { print "row " rows ": gpu_util_peak " $col["gpu_util_peak"] " < 50 %"; bad = 1 }
      if (watts < 30 || watts > 1200) { print "row " rows ": " watts " W (energy / seconds) is not a GPU at work"; bad = 1 }
      if ($col["gpu_temp_max"] < 15 || $col["gpu_temp_max"] > 100) { print "row " rows ": gpu_temp_max " $col["gpu_temp_max"]; bad = 1 }
      if ($col["gpu_xid_events"] != 0) { print "row " rows ": " $col["gpu_xid_events"] " Xid events"; bad = 1 }
    }
    END { if (rows != 2) { print rows " rows, not 2"; bad = 1 } exit bad }' <<<"$table" || return 1
  SHARDRUN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 "$shardrun" run "$examples/gpu-telemetry.yaml" \
    --set output.path="$work/gpu-telemetry-off.h5" --set params.repeats=2 --force --progress plain || return 1
  if "$shardrun" table "$work/gpu-telemetry-off.h5" --columns gpu_energy_j >/dev/null 2>&1; then
    echo "without NVML the gpu_* columns must be absent"
    return 1
  fi
  echo "without NVML: no gpu_* columns, as documented"
}

# Four tasks per GPU under MPS with a 1 GiB limit each (issue 26, point 1), through PyTorch (the
# python3 on PATH must have it; without it the step says so and is skipped): the 2 GiB task must
# fail with CUDA's out-of-memory error and every other one succeed; the tasks see 25 % of the
# SMs; then no MPS daemon may be left. Then the gemm kind packed 4 to a GPU (a stream per slot).
check_gpu_packing() {
  if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "the python3 on PATH has no PyTorch with CUDA, which examples/gpu-packing needs"
    return 77
  fi
  "$shardrun" plan "$examples/gpu-packing/packing.yaml" --gpus-per-node 1 | tail -n 8
  local status=0 table
  "$shardrun" run "$examples/gpu-packing/packing.yaml" --set output.path="$work/gpu-packing.h5" --force --progress plain || status=$?
  table=$("$shardrun" table "$work/gpu-packing.h5" --csv --columns gib,status,held_gib,thread_percent,message) || return 1
  echo "$table"
  [[ $status -eq 1 ]] || { echo "the run exited $status, not 1 (one task over its memory limit)"; return 1; }
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { rows++
      failed = $col["status"] != "ok"
      if (($col["gib"] > 1) != failed) { print "gib " $col["gib"] ": status " $col["status"] " is wrong for a 1 GiB limit"; bad = 1 }
      if (!failed && $col["thread_percent"] != 25) { print "gib " $col["gib"] ": thread_percent " $col["thread_percent"] ", not 25"; bad = 1 }
    }
    END { if (rows != 8) { print rows " rows, not 8"; bad = 1 } exit bad }' <<<"$table" || return 1
  grep -q "out of memory" <<<"$table" || { echo "the failed task's message does not say 'out of memory'"; return 1; }
  # By process name (comm, 15 characters: control and server alike), not command line. A zombie
  # (state Z) has exited: in a container whose PID 1 reaps no orphans (an H100 run, 2026-11-26:
  # "4296 [nvidia-cuda-mps] <defunct>") the daemon's exited processes stay as zombies forever, and
  # they hold no GPU memory and no pipe; they are listed, not counted.
  local left zombies
  left=$(ps -eo stat=,pid=,comm= | awk '$3 == "nvidia-cuda-mps" && $1 !~ /^Z/')
  zombies=$(ps -eo stat=,pid=,comm= | awk '$3 == "nvidia-cuda-mps" && $1 ~ /^Z/')
  [[ -z $zombies ]] || echo "exited MPS processes not reaped by this container's PID 1 (zombies, not counted): $zombies"
  if [[ -n $left ]]; then echo "an MPS daemon is left:"; echo "$left"; return 1; fi
  echo "no MPS daemon left"
  "$shardrun" run "$examples/gpu-vs-cpu.yaml" --set output.path="$work/gemm-packed.h5" --set 'sweep.device=[cuda]' \
    --set tasks_per_gpu=4 --set gpu_sharing=mps --force --progress plain || return 1
  "$shardrun" table "$work/gemm-packed.h5" --columns n,device,seconds,status
}

# GPM per task (issue 38, point 2): examples/gpu-gpm's bf16 GEMM task must show SM activity >= 90 %
# and tensor activity >= 50 %; its one-block spin task utilisation >= 90 % (NVML) with SM activity
# <= 5 %, flagged "GPU mostly idle" by the report. Needs PyTorch with CUDA on PATH's python3 and a
# GPU with GPM (Hopper or later); otherwise skipped, saying which.
check_gpu_gpm() {
  if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    echo "the python3 on PATH has no PyTorch with CUDA, which examples/gpu-gpm needs"
    return 77
  fi
  local info
  info=$("$shardrun" info) || return 1
  grep -E '^  GPM ' <<<"$info"
  if grep -q '^  GPM         none' <<<"$info"; then
    echo "this GPU has no GPM: $(grep '^  GPM' <<<"$info" | sed 's/.*left out: //')"
    return 77
  fi
  "$shardrun" run "$examples/gpu-gpm/gpm.yaml" --set output.path="$work/gpu-gpm.h5" --force --progress plain || return 1
  local table report
  table=$("$shardrun" table "$work/gpu-gpm.h5" --csv \
    --columns what,gpu_util_mean,gpu_sm_active,gpu_sm_occupancy,gpu_tensor_active,gpu_dram_bw,gpu_hours_active) || return 1
  echo "$table"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["what"] == "gemm" { seen++
      if ($col["gpu_sm_active"] < 90) { print "gemm: gpu_sm_active " $col["gpu_sm_active"] " < 90 %"; bad = 1 }
      if ($col["gpu_tensor_active"] < 50) { print "gemm: gpu_tensor_active " $col["gpu_tensor_active"] " < 50 %"; bad = 1 } }
    $col["what"] == "spin" { seen++
      if ($col["gpu_util_mean"] < 90) { print "spin: gpu_util_mean " $col["gpu_util_mean"] " < 90 %"; bad = 1 }
      if ($col["gpu_sm_active"] > 5) { print "spin: gpu_sm_active " $col["gpu_sm_active"] " > 5 %"; bad = 1 } }
    END { if (seen != 2) { print seen " of the gemm and spin rows"; bad = 1 } exit bad }' <<<"$table" || return 1
  report=$("$shardrun" report "$work/gpu-gpm.h5" --png "$work/gpu-gpm.png") || return 1
  echo "$report"
  grep -q "GPU mostly idle: task 1" <<<"$report" || { echo "the report does not flag the spin task (1) as mostly idle"; return 1; }
}

# Energy and money per task (issue 38, point 3): the GEMM and spin tasks' energy_j against their
# gpu_energy_j (plus RAPL's share where readable), a power a GPU at work draws, and cost_usd at
# the example's price: {gpu_hour: 3.0}. Reads what check_gpu_gpm wrote; skipped where it did not run.
check_gpu_energy() {
  if [[ ! -f $work/gpu-gpm.h5 ]]; then
    echo "the GPM step wrote no $work/gpu-gpm.h5 to read"
    return 77
  fi
  "$shardrun" info | grep -E '^  CPU energy' || true
  local table
  table=$("$shardrun" table "$work/gpu-gpm.h5" --csv --columns what,seconds,gpu_energy_j,cpu_energy_j,energy_j,cost_usd) || return 1
  echo "$table"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { rows++
      watts = $col["seconds"] > 0 ? $col["gpu_energy_j"] / $col["seconds"] : 0
      if (watts < 30 || watts > 1200) { print $col["what"] ": " watts " W is not a GPU at work"; bad = 1 }
      cpu = $col["cpu_energy_j"] == "" ? 0 : $col["cpu_energy_j"]
      d = $col["energy_j"] - $col["gpu_energy_j"] - cpu; if (d < 0) d = -d
      if (d > 1e-6 * $col["energy_j"]) { print $col["what"] ": energy_j is not gpu_energy_j + cpu_energy_j"; bad = 1 }
      want = $col["seconds"] / 3600 * 3.0; d = $col["cost_usd"] - want; if (d < 0) d = -d
      if (d > 1e-3 * want) { print $col["what"] ": cost_usd " $col["cost_usd"] ", not " want; bad = 1 } }
    END { if (rows != 2) { print rows " rows, not 2"; bad = 1 } exit bad }' <<<"$table"
}

# The admission check (issue 38, point 1) on a real GPU: examples/gpu-admission.yaml's gemm task at
# the check's shape (n = 4096, float32). The check's GEMM must reach 0.9 x the task's cuBLAS rate
# (the check takes the median of its repeats, the task the best), the GPU must be admitted, and
# the check must take at most 10 s. Both figures are printed; then the bf16 check's rate.
check_gpu_admission() {
  local summary table
  summary=$("$shardrun" run "$examples/gpu-admission.yaml" --set output.path="$work/gpu-admission.h5" --force \
    --progress json | tail -n 1) || return 1
  table=$("$shardrun" table "$work/gpu-admission.h5" --csv --columns gflops) || return 1
  SUMMARY=$summary TABLE=$table python3 - <<'PY' || return 1
import json, os, sys
cublas = float(os.environ["TABLE"].strip().splitlines()[-1].split(",")[-1]) / 1e3
rows = [row for rank in json.loads(os.environ["SUMMARY"])["ranks"] for row in rank.get("gpu_checks", [])]
if not rows:
    sys.exit("no admission check was recorded")
bad = 0
for row in rows:
    ratio = row["gemm_tflops"] / cublas if cublas > 0 else 0
    print(f"rank {row['rank']} {row['device']} {row['model']}: admission GEMM {row['gemm_tflops']:.1f} TFLOP/s "
          f"(fp32, n=4096), cuBLAS through the gemm kind {cublas:.1f} TFLOP/s: ratio {ratio:.2f} (target >= 0.9); "
          f"copy {row['copy_gbps']:.0f} GB/s; check {row['check_seconds']:.2f} s; admitted {row['admitted']}: {row['reason']}")
    if ratio < 0.9 or not row["admitted"] or row["check_seconds"] > 10:
        bad = 1
sys.exit(bad)
PY
  summary=$("$shardrun" run "$examples/gpu-admission.yaml" --set output.path="$work/gpu-admission-bf16.h5" --force \
    --set gpu_admission.precision=bf16 --set params.repeats=3 --progress json | tail -n 1) || return 1
  SUMMARY=$summary python3 - <<'PY'
import json, os
for rank in json.loads(os.environ["SUMMARY"])["ranks"]:
    for row in rank.get("gpu_checks", []):
        print(f"bf16 check: {row['gemm_tflops']:.0f} TFLOP/s, {row['check_seconds']:.2f} s, admitted {row['admitted']}: {row['reason']}")
PY
}
