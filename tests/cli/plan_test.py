"""`shardrun plan`: no MPI, O(groups) work, memory flat in the task count."""
import json
import subprocess
import sys
import unittest

from harness import SHARDRUN, clean_env, run, scratch_dir
from jobs import write_job


class PlanTest(unittest.TestCase):
    def plan(self, text, *args):
        work = scratch_dir()
        proc = run(["plan", write_job(work, text), "--json", *args])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout)

    def test_static_groups_cover_the_tasks(self):
        report = self.plan("task: noop\nschedule: static\nsweep: {a: [1, 2, 3]}\ndata: {items: 1000, chunk: 64}\n",
                           "--ranks", "4")
        self.assertEqual(report["tasks"], 48)
        self.assertEqual([g["count"] for g in report["groups"]], [12, 12, 12, 12])
        self.assertEqual(report["groups"][1]["first_id"], 12)
        self.assertEqual(sum(g["items"] for g in report["groups"]), 3000)

    def test_array_elements_and_gpus_per_task(self):
        report = self.plan("task: noop\nschedule: static\ngpus_per_task: 2\nsweep: {a: {range: [0, 10, 1]}}\n",
                           "--ranks", "4", "--array-count", "3")
        self.assertEqual(len(report["groups"]), 6)
        self.assertEqual([g["count"] for g in report["groups"]], [2, 2, 2, 1, 2, 1])
        self.assertEqual([g["first_rank"] for g in report["groups"][:2]], [0, 2])

    @staticmethod
    def peak_kib(job):
        """Peak RSS of `shardrun plan job`, measured in a wrapper process of its own."""
        probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
                 "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
        out = subprocess.run([sys.executable, "-c", probe, SHARDRUN, "plan", job, "--ranks", "8"],
                             capture_output=True, text=True, env=clean_env(), check=True)
        return int(out.stdout)

    def test_billion_task_sweep_is_lazy(self):
        work = scratch_dir()
        big = write_job(work, "task: noop\nschedule: static\nsweep: {i: {range: [0, 1000000000, 1]}}\n", "big.yaml")
        small = write_job(work, "task: noop\nschedule: static\nsweep: {i: {range: [0, 10, 1]}}\n", "small.yaml")
        proc = subprocess.run([SHARDRUN, "plan", big, "--ranks", "8", "--json"], capture_output=True, text=True,
                              env=clean_env())
        self.assertEqual(proc.returncode, 0, proc.stderr)
        report = json.loads(proc.stdout)
        self.assertEqual(report["tasks"], 1000000000)
        self.assertEqual(report["groups"][7]["last_id"], 999999999)
        # Flat memory: the billion-task plan needs no more than a ten-task plan, within 16 MiB.
        self.assertLess(self.peak_kib(big), self.peak_kib(small) + 16 * 1024)

    def test_gpus_per_task_must_divide(self):
        work = scratch_dir()
        proc = run(["plan", write_job(work, "task: noop\ngpus_per_task: 3\n"), "--ranks", "4"])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("gpus_per_task: 3 does not divide the 4 ranks", proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
