"""The GPU panel of shardrun report: per-task telemetry from /tasks/gpu_* (NVML), when the file has it.

Read by shardrun-report.py; absent columns (no NVML, no GPU, telemetry_interval: off) mean no panel.
"""
import math

GPU_COLUMNS = ("gpu_mem_peak", "gpu_util_mean", "gpu_util_peak", "gpu_energy_j", "gpu_temp_max", "gpu_xid_events")


def read_gpu(f):
    """{column: array, 'scope': text} of the measured tasks' telemetry, or None where the file has none."""
    if "tasks" not in f or "gpu_mem_peak" not in f["tasks"]:
        return None
    gpu = {c: f["tasks"][c][:] for c in GPU_COLUMNS if c in f["tasks"]}
    scope = f["tasks/gpu_mem_peak"].attrs.get("scope", b"")
    gpu["scope"] = scope.decode() if isinstance(scope, bytes) else str(scope)
    gpu["measured"] = gpu["gpu_mem_peak"] >= 0
    return gpu


def gpu_stats(gpu):
    """Totals for --stats and the summary: None without telemetry."""
    if gpu is None or not gpu["measured"].any():
        return None
    ok = gpu["measured"]
    energy = gpu["gpu_energy_j"][ok]
    energy = energy[~(energy != energy)]  # NaN where a device has no energy counter
    xids = gpu.get("gpu_xid_events")
    return {"tasks_measured": int(ok.sum()),
            "energy_j_total": float(energy.sum()) if len(energy) else None,
            "util_mean": float(gpu["gpu_util_mean"][ok].mean()),
            "util_peak": float(gpu["gpu_util_peak"][ok].max()),
            "mem_peak_bytes": int(gpu["gpu_mem_peak"][ok].max()),
            "temp_max_c": float(gpu["gpu_temp_max"][ok].max()),
            "xid_events": int(xids[ok][xids[ok] > 0].sum()) if xids is not None else 0,
            "memory_scope": gpu["scope"]}


def gpu_words(gpu):
    """'; GPU: 12.3 kJ, util 45 % mean, peak memory 3.1 GiB, 71 C max' for the summary line, or ''."""
    s = gpu_stats(gpu)
    if s is None:
        return ""
    energy = "" if s["energy_j_total"] is None else f"{s['energy_j_total'] / 1000:.3g} kJ, "
    xids = f", {s['xid_events']} Xid events" if s["xid_events"] else ""
    return (f"; GPU: {energy}util {s['util_mean']:.0f} % mean, peak memory {s['mem_peak_bytes'] / 2**30:.3g} GiB, "
            f"{s['temp_max_c']:.0f} C max{xids}")


def draw_gpu(ax_energy, ax_memory, run, gpu):
    """Left: energy per task against its duration, coloured by mean utilisation. Right: peak memory per task."""
    ok = gpu["measured"]
    ids = [i for i in range(len(ok)) if ok[i]]
    seconds = [run["end"][i] - run["start"][i] for i in ids]
    energy = [gpu["gpu_energy_j"][i] for i in ids]
    util = [gpu["gpu_util_mean"][i] for i in ids]
    points = ax_energy.scatter(seconds, [0 if math.isnan(e) else e for e in energy], c=util, cmap="viridis",
                               vmin=0, vmax=100, s=18)
    ax_energy.figure.colorbar(points, ax=ax_energy, label="mean GPU utilisation (%, per device)")
    ax_energy.set_xlabel("task seconds")
    ax_energy.set_ylabel("GPU energy (J, per device)")
    ax_energy.set_title("GPU energy per task", fontsize=10)
    ax_energy.grid(alpha=0.3)
    ax_memory.bar(ids, [gpu["gpu_mem_peak"][i] / 2**20 for i in ids], color="#55A868", width=0.8)
    ax_memory.set_xlabel("task id")
    ax_memory.set_ylabel("peak GPU memory (MiB)")
    scope = gpu["scope"].split(":")[0] or "device"
    ax_memory.set_title(f"peak GPU memory per task ({scope})", fontsize=10)
    ax_memory.grid(axis="y", alpha=0.3)
