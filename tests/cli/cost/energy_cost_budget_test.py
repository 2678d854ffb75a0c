"""Energy and money per task, and a budget that drains (issue 38, point 3), on the CPU: /tasks/cost_usd
from `price:` (node_hour, shared by the node's ranks), /tasks/cpu_energy_j from a powercap tree whose
package counter a thread of this test advances at a fixed power (SHARDRUN_POWERCAP_ROOT; the real one
is root-only or absent here), the report's totals, a `budget:` at half the run's cost that drains
(exit 3) within one task of crossing it, saying what was spent and what is left, a resume at the same
budget that starts nothing, and `--resume --set budget=...` that completes the rest with no task run
twice. Bad price and budget fields: one line, exit 2, nothing written."""
import json
import os
import threading
import time
import unittest
from collections import Counter

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job
from xarray_check import check_results_file, ensure_xarray

NODE_HOUR = 3600.0  # dollars: a task-second at share 1/2 costs $0.50
CPU_WATTS = 50.0
TASKS = 12

JOB = """
name: cost
task: exec
device: cpu
sweep: {{x: {xs}}}
output: {{path: {out}}}
{extra}
exec:
  argv: [/usr/bin/python3, -c, "import os, time; open(os.environ['LOG'], 'a').write(os.environ['SHARDRUN_TASK_ID'] + '\\\\n'); time.sleep(0.4)"]
  env: {{LOG: {log}}}
"""


class FakeRapl:
    """intel-rapl:0/energy_uj advancing at CPU_WATTS, rewritten (atomically) every 2 ms."""

    def __init__(self, root):
        self.zone = os.path.join(root, "intel-rapl:0")
        os.makedirs(self.zone)
        with open(os.path.join(self.zone, "max_energy_range_uj"), "w") as f:
            f.write("262143328850\n")
        self.start = time.monotonic()
        self.stopping = threading.Event()
        self.write()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def write(self):
        uj = int((time.monotonic() - self.start) * CPU_WATTS * 1e6)
        tmp = os.path.join(self.zone, ".energy_uj")
        with open(tmp, "w") as f:
            f.write(f"{uj}\n")
        os.replace(tmp, os.path.join(self.zone, "energy_uj"))

    def loop(self):
        while not self.stopping.wait(0.002):
            self.write()

    def stop(self):
        self.stopping.set()
        self.thread.join()


class EnergyCostBudgetTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "out.h5")
        self.log = os.path.join(self.work, "ran.log")
        self.rapl = FakeRapl(os.path.join(self.work, "powercap"))
        self.addCleanup(self.rapl.stop)

    def env(self):
        return {"SHARDRUN_POWERCAP_ROOT": os.path.join(self.work, "powercap")}

    def job(self, extra, tasks=TASKS):
        return write_job(self.work, JOB.format(xs=list(range(tasks)), out=self.out, log=self.log, extra=extra))

    def tasks(self):
        with h5py_module().File(self.out, "r") as f:
            t = f["tasks"]
            got = {c: t[c][()].tolist() for c in ("status", "attempts", "start", "end") if c in t}
            for c in ("cost_usd", "energy_j", "cpu_energy_j", "gpu_sm_active", "gpu_mem_peak"):
                got[c] = t[c][()].tolist() if c in t else None
            got["units"] = {c: t[c].attrs["units"] for c in ("cost_usd", "energy_j", "cpu_energy_j") if c in t}
        got["seconds"] = [e - s for s, e in zip(got["start"], got["end"])]
        return got

    def table(self, columns="status,attempts,seconds,cost_usd,energy_j"):
        """What `shardrun table` reads of the output, complete or not (an interrupted run has no master yet)."""
        proc = run(["table", self.out, "--csv", "--columns", columns])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        lines = proc.stdout.splitlines()
        header = lines[0].split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
        number = lambda text: float(text) if text else float("nan")  # noqa: E731
        return {"status": [r["status"] for r in rows], "attempts": [int(r["attempts"]) for r in rows],
                "cost_usd": [number(r["cost_usd"]) for r in rows] if "cost_usd" in header else None,
                "seconds": [number(r["seconds"]) for r in rows],
                "energy_j": [number(r["energy_j"]) for r in rows] if "energy_j" in header else None}

    def ran(self):
        with open(self.log) as f:
            return Counter(int(line) for line in f if line.strip())

    def test_cost_and_cpu_energy_columns_through_both_layouts_and_merge(self):
        for layout, args in (("single", ["--force"]), ("merge", None)):
            with self.subTest(layout=layout):
                if args is None:  # two array elements, shards, merged
                    for index in (0, 1):
                        job = self.job(f"price: {{node_hour: {NODE_HOUR}}}", tasks=6)
                        proc = run(["run", job, "--force", "--array-index", str(index), "--array-count", "2"], np=2,
                                   env=self.env())
                        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                    merge = run(["merge", self.out])
                    self.assertEqual(merge.returncode, 0, merge.stdout + merge.stderr)
                else:
                    job = self.job(f"price: {{node_hour: {NODE_HOUR}}}", tasks=6)
                    with open(job) as f:
                        text = f.read().replace(f"output: {{path: {self.out}}}", f"output: {{path: {self.out}, layout: single}}")
                    with open(job, "w") as f:
                        f.write(text)
                    proc = run(["run", job, *args], np=2, env=self.env())
                    self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                got = self.tasks()
                self.assertEqual(got["units"], {"cost_usd": "USD", "energy_j": "J", "cpu_energy_j": "J"})
                for cost, seconds in zip(got["cost_usd"], got["seconds"]):
                    self.assertAlmostEqual(cost, seconds / 3600 * NODE_HOUR / 2, places=9)
                check_results_file(self, self.out, 6)

    def test_cost_and_cpu_energy_columns_and_report_totals(self):
        job = self.job(f"price: {{node_hour: {NODE_HOUR}}}", tasks=6)
        proc = run(["run", job], np=2, env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(self.out))

        got = self.tasks()
        self.assertEqual(got["units"], {"cost_usd": "USD", "energy_j": "J", "cpu_energy_j": "J"})
        self.assertIsNone(got["gpu_sm_active"], "GPM columns without a GPU")
        self.assertIsNone(got["gpu_mem_peak"], "GPU telemetry columns without a GPU")
        for cost, cpu, total, seconds in zip(got["cost_usd"], got["cpu_energy_j"], got["energy_j"], got["seconds"]):
            # Two ranks on the node: each task's share is half the node-hour and half the package's energy.
            self.assertAlmostEqual(cost, seconds / 3600 * NODE_HOUR / 2, places=9)
            self.assertAlmostEqual(cpu, CPU_WATTS * seconds / 2, delta=0.1 * CPU_WATTS * seconds / 2 + 0.2, msg=got)
            self.assertEqual(total, cpu)  # no GPU: the CPU's share is all of it
        check_results_file(self, self.out, 6)
        stats = os.path.join(self.work, "stats.json")
        report = run(["report", self.out, "--png", os.path.join(self.work, "r.png"), "--stats", stats])
        self.assertEqual(report.returncode, 0, report.stdout + report.stderr)
        with open(stats) as f:
            cost = json.load(f)["cost"]
        self.assertAlmostEqual(cost["cost_usd_total"], sum(got["cost_usd"]), places=6)
        self.assertAlmostEqual(cost["energy_kwh_total"], sum(got["energy_j"]) / 3.6e6, places=12)

    def test_budget_at_half_the_cost_drains_then_a_raised_budget_completes(self):
        # A task of ~0.45 s costs ~$0.22; the whole run ~$2.7: half of it is about six tasks.
        per_task = 0.45 / 3600 * NODE_HOUR / 2
        budget = TASKS * per_task / 2
        job = self.job(f"price: {{node_hour: {NODE_HOUR}}}\nbudget: \"${budget:.2f}\"")
        proc = run(["run", job], np=2, env=self.env())
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr + task_stderr(self.out))
        self.assertIn(f"budget ${budget:.2f} reached: spent $", proc.stdout + proc.stderr)
        self.assertIn("left", proc.stdout + proc.stderr)
        self.assertIn("--resume --set budget=", proc.stdout + proc.stderr)
        # The budget's own way to go on, not the generic hints of a failure stop or a signal.
        self.assertNotIn("needs --force", proc.stdout + proc.stderr)
        self.assertNotIn("interrupted by", proc.stdout)

        got = self.table()
        done = [i for i, s in enumerate(got["status"]) if s == "ok"]
        spent = sum(got["cost_usd"][i] for i in done)
        longest = max(got["cost_usd"][i] for i in done)
        self.assertLess(len(done), TASKS, got)
        # Drained within one task of crossing the budget, and not long before it.
        self.assertLessEqual(spent, budget + longest, got)
        self.assertGreaterEqual(spent, budget - 2 * longest, got)
        self.assertEqual(sorted(self.ran()), done, "a task ran but was not recorded ok")

        # The same budget again: what was spent counts, so no task starts.
        again = run(["run", job, "--resume"], np=2, env=self.env())
        self.assertEqual(again.returncode, 3, again.stdout + again.stderr)
        self.assertIn("budget", again.stdout + again.stderr)
        self.assertEqual(sorted(self.ran()), done, "a task started past the budget")

        resumed = run(["run", job, "--resume", "--set", "budget=100"], np=2, env=self.env())
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr + task_stderr(self.out))
        got = self.tasks()
        self.assertEqual(got["status"], [1] * TASKS, got)
        self.assertEqual(got["attempts"], [1] * TASKS, got)
        self.assertEqual(self.ran(), Counter(range(TASKS)), "a task ran twice, or never")
        check_results_file(self, self.out, TASKS)

    def test_kwh_budget_counts_energy(self):
        # 50 W shared by two ranks: a 0.45 s task takes ~11 J; a budget of 30 J stops after a few.
        job = self.job(f"budget: \"{30 / 3.6e6:.9f} kWh\"")
        proc = run(["run", job], np=2, env=self.env())
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr + task_stderr(self.out))
        got = self.table("status,attempts,seconds,energy_j")
        done = [i for i, s in enumerate(got["status"]) if s == "ok"]
        self.assertLess(len(done), TASKS, got)
        self.assertNotEqual(run(["table", self.out, "--columns", "cost_usd"]).returncode, 0, "a cost column without a price")
        self.assertLessEqual(sum(got["energy_j"][i] for i in done), 30 + max(got["energy_j"][i] for i in done), got)

    def test_info_says_whether_cpu_energy_is_readable(self):
        info = run(["info"], env=self.env())
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertIn("CPU energy  RAPL, 1 package(s): /tasks/cpu_energy_j", info.stdout)
        missing = run(["info"], env={"SHARDRUN_POWERCAP_ROOT": os.path.join(self.work, "no-such-powercap")})
        self.assertIn("CPU energy  not readable here: no RAPL package under", missing.stdout)

    def test_bad_price_and_budget_are_one_line_exit_2(self):
        cases = [("budget: 5", "budget: is in dollars, but the job has no price"),
                 ("budget: \"5 parsecs\"", "budget: must be dollars"),
                 ("price: {machine: no-such-box}", "price.machine: 'no-such-box' is not in shardrun's table"),
                 ("price: {gpu_hour: -1}", "price.gpu_hour: must be a number of dollars"),
                 ("price: {gpu_hour: 1, cost: 2}", "price")]
        for extra, message in cases:
            with self.subTest(extra=extra):
                proc = run(["run", self.job(extra)], env=self.env())
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(message, proc.stderr)
                self.assertIn("job.yaml:", proc.stderr)
                self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    ensure_xarray()
    unittest.main()
