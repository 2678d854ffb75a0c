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

    def test_gpus_per_rank_packs_by_node(self):
        # The command of issue 24, point 8: 8 ranks, 4 per node, 8 GPUs per node, 2 per rank.
        job = "task: exec\ngpus_per_rank: 2\nexec: {argv: [/bin/true]}\nsweep: {a: [1, 2, 3, 4, 5, 6, 7, 8]}\n"
        report = self.plan(job, "--ranks", "8", "--ranks-per-node", "4", "--gpus-per-node", "8")
        self.assertEqual(report["gpus_per_rank"], 2)
        devices = {m["rank"]: (m["host"], m["device"]) for g in report["groups"] for m in g["members"]}
        self.assertEqual(devices[0], ("node0", "cuda:0+1"))
        self.assertEqual(devices[3], ("node0", "cuda:6+7"))
        self.assertEqual(devices[4], ("node1", "cuda:0+1"))
        self.assertEqual(devices[7], ("node1", "cuda:6+7"))
        text = run(["plan", write_job(scratch_dir(), job), "--ranks", "8", "--ranks-per-node", "4",
                    "--gpus-per-node", "8"])
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("2 GPUs per rank", text.stdout)

    def test_gpus_per_rank_with_groups(self):
        job = "task: exec\ngpus_per_task: 2\ngpus_per_rank: 2\nexec: {argv: [/bin/true]}\n"
        report = self.plan(job, "--ranks", "4", "--ranks-per-node", "4", "--gpus-per-node", "8")
        self.assertEqual([[m["device"] for m in g["members"]] for g in report["groups"]],
                         [["cuda:0+1", "cuda:2+3"], ["cuda:4+5", "cuda:6+7"]])

    def test_gpus_per_rank_bad_combinations_exit_2_with_one_line(self):
        cases = [
            ("gpus_per_rank: 2\n", ["--ranks", "8", "--ranks-per-node", "4", "--gpus-per-node", "6"],
             "needs GPUs 6..7 for local rank 3, but this node shows 6"),
            ("gpus_per_rank: 2\ndevice: cpu\n", [], "gpus_per_rank: asks for GPUs, but device: cpu"),
            ("gpus_per_rank: 0\n", [], "gpus_per_rank"),
            ("gpus_per_rank: 1.5\n", [], "gpus_per_rank"),
        ]
        for extra, args, fragment in cases:
            with self.subTest(extra=extra):
                work = scratch_dir()
                proc = run(["plan", write_job(work, "task: noop\n" + extra), *args])
                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(fragment, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
