"""Per-task accounting (issue 35, point 10): /tasks/cpu_time (user + system seconds) and
/tasks/mem_peak (peak resident bytes) come from wait4()'s rusage of an exec task's process. A
task that burns about 1 s of CPU and touches 200 MB reads 0.8-1.3 s and 180-260 MB, read back
with h5py, in both output layouts at 1 (shards), 2 and 4 ranks; an idle task reads little; a built-in kind's tasks
read "not measured" (NaN, -1), which `shardrun table` shows as missing cells. These are ranges
of what the kernel accounted, not timings of shardrun."""
import json
import math
import os
import sys
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

# Touches 200 MB page by page (resident, not only reserved), then spins until the process has
# used 1 s of CPU in all (its start-up and the page faults included).
BURNER = r"""
import sys, time
size = 200 * 10**6
if sys.argv[1] == "1":
    block = bytearray(size)
    for i in range(0, size, 4096):
        block[i] = 1
    while time.process_time() < 1.0:
        pass
"""

MB = 10**6


class TaskAccountingTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.burner = os.path.join(self.work, "burner.py")
        with open(self.burner, "w") as f:
            f.write(BURNER)

    def run_burner(self, layout, np):
        job = write_job(self.work, f"""
name: burn
task: exec
sweep: {{burn: [1, 0]}}
exec:
  argv: [{sys.executable}, {self.burner}, "{{burn}}"]
output: {{path: {self.work}/burn-{layout}-{np}.h5, layout: {layout}}}
""", name=f"burn-{layout}-{np}.yaml")
        proc = run(["run", job, "-q"], np=np)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py_module().File(os.path.join(self.work, f"burn-{layout}-{np}.h5"), "r") as f:
            tasks = f["tasks"]
            units = (tasks["cpu_time"].attrs["units"], tasks["mem_peak"].attrs["units"])
            return tasks["cpu_time"][:].tolist(), tasks["mem_peak"][:].tolist(), units

    def check_burner(self, layout, np):
        cpu, mem, units = self.run_burner(layout, np)

        self.assertEqual(units, ("s", "bytes"))
        self.assertTrue(0.8 <= cpu[0] <= 1.3, f"{layout} at np {np}: task 0 burnt 1 s of CPU, /tasks/cpu_time reads {cpu[0]}")
        self.assertTrue(180 * MB <= mem[0] <= 260 * MB, f"{layout} at np {np}: task 0 touched 200 MB, mem_peak reads {mem[0]}")
        # The idle task: an interpreter's start-up, far below the burner, and measured (not NaN / -1).
        self.assertTrue(0 <= cpu[1] < 0.5, f"{layout}: the idle task's cpu_time reads {cpu[1]}")
        self.assertTrue(1 * MB <= mem[1] < 100 * MB, f"{layout}: the idle task's mem_peak reads {mem[1]}")

    def test_shards_layout_records_cpu_time_and_peak_memory(self):
        for np in (1, 2, 4):  # np 1: the rank alone; np 4: ranks without a task write no row
            with self.subTest(np=np):
                self.check_burner("shards", np)

    def test_single_layout_records_cpu_time_and_peak_memory(self):
        for np in (2, 4):  # the collective write, with and without ranks that ran nothing
            with self.subTest(np=np):
                self.check_burner("single", np)

    def test_built_in_kind_is_not_measured_and_table_shows_missing_cells(self):
        job = write_job(self.work, f"""
name: idle
task: noop
sweep: {{i: [0, 1, 2]}}
output: {{path: {self.work}/idle.h5}}
""", name="idle.yaml")
        output = os.path.join(self.work, "idle.h5")

        proc = run(["run", job, "-q"], np=2)
        table = run(["table", output, "--columns", "cpu_time,mem_peak", "--csv"])

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with h5py_module().File(output, "r") as f:
            self.assertTrue(all(math.isnan(v) for v in f["tasks"]["cpu_time"][:]))
            self.assertEqual(f["tasks"]["mem_peak"][:].tolist(), [-1, -1, -1])
        self.assertEqual(table.returncode, 0, table.stderr)
        rows = table.stdout.strip().splitlines()
        self.assertEqual(rows[0].split(","), ["task", "cpu_time", "mem_peak"])
        self.assertEqual([row.split(",")[1:] for row in rows[1:]], [["", ""]] * 3, table.stdout)

    def test_summary_json_totals_the_measured_tasks(self):
        job = write_job(self.work, f"""
name: two
task: exec
sweep: {{i: [0, 1]}}
exec: {{argv: [true]}}
output: {{path: {self.work}/two.h5}}
""", name="two.yaml")

        proc = run(["run", job, "--progress", "json"])

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        summary = [json.loads(line) for line in proc.stdout.splitlines() if '"summary"' in line][-1]
        self.assertEqual(summary["measured_tasks"], 2)
        self.assertGreaterEqual(summary["cpu_seconds"], 0.0)
        self.assertGreater(summary["mem_peak"], 0)


if __name__ == "__main__":
    unittest.main()
