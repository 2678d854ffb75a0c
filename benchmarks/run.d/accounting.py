"""What per-task accounting costs (issue 35, point 10): /tasks/cpu_time and mem_peak come from
wait4()'s rusage and travel to the master with the other /tasks columns. The same 10,000
/bin/true tasks (quick: 1,000) under `mpirun -np 2`, with the accounting on and with it off
(SHARDRUN_NO_TASK_ACCOUNTING=1, a switch for this benchmark only), interleaved; medians of the
rounds. The row's ratio is off / on wall time (>= 0.98: the accounting costs at most 2 % of
dispatch); its note gives the same for the CPU seconds of the whole run (children included),
the steadier figure on a shared machine."""
import os
import resource
import shutil

from common import Row, interleave, median, mpi_env, ratio_of_rounds, run

TARGET = 0.98  # issue 35, point 10: <= 2 % of dispatch


def _job(ctx, tasks, accounting, cpu):
    binary = ctx.binary("shardrun")
    env = mpi_env() if accounting else mpi_env({"SHARDRUN_NO_TASK_ACCOUNTING": "1"})

    def once():
        work = ctx.scratch("accounting-on" if accounting else "accounting-off")
        job = os.path.join(work, "job.yaml")
        with open(job, "w") as f:
            f.write(f"name: accounting\ntask: exec\nsweep: {{i: {{range: [0, {tasks}, 1]}}}}\n"
                    f"output: {{path: {work}/out/true.h5}}\nexec: {{argv: [/bin/true, \"{{i}}\"]}}\n")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds, _ = run(["mpirun", "-np", "2", binary, "run", job, "-q"], env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        shutil.rmtree(work, ignore_errors=True)
        return seconds
    return once


def rows(ctx):
    tasks = 1000 if ctx.quick else 10000
    ctx.log(f"  accounting, {tasks} tasks")
    cpu = {"on": [], "off": []}
    times = interleave({"on": _job(ctx, tasks, True, cpu["on"]), "off": _job(ctx, tasks, False, cpu["off"])},
                       ctx.rounds, ctx.log)
    row = Row(f"task accounting (cpu_time, mem_peak) at {tasks} x /bin/true, on vs off", target=f">= {TARGET:g}")
    on, off = times["on"], times["off"]
    if isinstance(on, str) or isinstance(off, str):
        return [row.error(on if isinstance(on, str) else off)]
    row.ours, row.anchor = f"{tasks / median(on):.0f}/s", f"{tasks / median(off):.0f}/s"
    row.ratio = ratio_of_rounds(on, off)
    row.met = row.ratio >= TARGET
    row.note = (f"CPU, children included: on {median(cpu['on']):.2f} s, off {median(cpu['off']):.2f} s, "
                f"off/on {ratio_of_rounds(cpu['on'], cpu['off']):.3f}")
    row.figures = {"ours_s": on, "anchor_s": off, "ours_cpu_s": cpu["on"], "anchor_cpu_s": cpu["off"]}
    return [row]
