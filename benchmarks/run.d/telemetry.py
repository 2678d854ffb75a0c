"""What GPU telemetry costs a task (issue 38, point 2: sampling <= 1 % of task time), with the
stand-in NVML (tests/support/fake_nvml: GPM on, 4 devices answering at once, so the figure is
shardrun's own cost, not a driver's). benchmarks/runner/telemetry_cost_bench runs tasks of a fixed
CPU spin in telemetry windows at the default interval (1 s) and at 100 ms; the ratio is cost per
task (open/close on the task's path + the sampler thread's CPU) over the task's own time, median
of the rounds. A real driver's calls take longer (scripts/gpu-check measures them on a GPU)."""
import json
import os
import subprocess

from common import Row, median, run

TARGET = 0.01


def rows(ctx):
    bench = ctx.binary("benchmarks/runner/telemetry_cost_bench")
    nvml = os.path.join(ctx.build, "tests", "fake_nvml", "libnvidia-ml.so.1")
    if not os.path.exists(nvml):
        subprocess.run(["cmake", "--build", ctx.build, "--target", "fake_nvml"], check=False)
    if not os.path.exists(nvml):
        return [Row("telemetry cost per task").error(f"no {nvml} (cmake --build {ctx.build} --target fake_nvml)")]
    tasks, task_ms = (20, 100) if ctx.quick else (100, 200)
    out = []
    for interval in (1.0, 0.1):
        ctx.log(f"  telemetry, {tasks} tasks of {task_ms} ms, interval {interval:g} s")
        results = []
        for _ in range(ctx.rounds):
            _, text = run([bench, nvml, str(tasks), str(task_ms), str(interval), "1"])
            results.append(json.loads(text.strip().splitlines()[-1]))
        row = Row(f"GPU telemetry (NVML + GPM, fake) per task, {task_ms} ms tasks, interval {interval:g} s",
                  target=f"<= {TARGET:g}")
        ratios = [r["ratio"] for r in results]
        row.ours = f"{median([r['cost_per_task_s'] for r in results]) * 1e6:.0f} us/task"
        row.anchor = f"{median([r['task_s'] for r in results]) * 1e3:.0f} ms/task"
        row.ratio = median(ratios)
        row.met = row.ratio <= TARGET
        row.note = (f"on the task's path {median([r['on_path_s'] for r in results]) * 1e6:.0f} us, sampler thread "
                    f"{median([r['sampler_cpu_s'] for r in results]) * 1e3:.1f} ms CPU per round; GPM "
                    f"{'on' if all(r['gpm'] for r in results) else 'OFF'}")
        row.figures = {"rounds": results}
        out.append(row)
    return out
