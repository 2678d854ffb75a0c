"""`shardrun bench allreduce` under mpiexec: nccl-tests' table, the data check, JSON, groups, bad input."""
import json
import os
import unittest

from harness import run, scratch_dir

SMALL = ["--min", "8", "--max", "64K"]
SMALL_SIZES = [8 << k for k in range(14)]  # 8 B .. 64 KiB, doubling


def bus_factor(ranks):
    return 2.0 * (ranks - 1) / ranks


def table_rows(stdout):
    """The table's data lines as dicts (every line not starting with '#')."""
    rows = []
    for line in stdout.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        size, count, dtype, time, algbw, busbw, wrong = line.split()
        rows.append({"size": int(size), "count": int(count), "type": dtype, "time_us": float(time),
                     "algbw": float(algbw), "busbw": float(busbw), "wrong": int(wrong)})
    return rows


def avg_bus_bandwidth(stdout):
    lines = [line for line in stdout.splitlines() if line.startswith("# Avg bus bandwidth")]
    return float(lines[0].split(":")[1])


class BenchAllreduceTest(unittest.TestCase):
    def bench(self, np, *args):
        """Runs the benchmark with --json; returns (table rows, JSON report, stdout)."""
        path = os.path.join(scratch_dir(), "bench.json")
        proc = run(["bench", "allreduce", *args, "--json", path], np=np)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(path) as f:
            report = json.load(f)
        return table_rows(proc.stdout), report, proc.stdout

    def check_table(self, rows, report, stdout, group):
        self.assertEqual([r["size"] for r in rows], SMALL_SIZES)
        self.assertEqual([r["count"] for r in rows], [s // 4 for s in SMALL_SIZES])
        self.assertEqual({r["type"] for r in rows}, {"float"})
        self.assertEqual([r["wrong"] for r in rows], [0] * len(rows))
        factor = bus_factor(group)
        for r in rows:
            # Both columns are printed to 0.01 GB/s.
            self.assertAlmostEqual(r["busbw"], r["algbw"] * factor, delta=0.005 + 0.005 * factor + 1e-9)
        self.assertIn("# Out of bounds values : 0 OK", stdout)

    def check_json(self, rows, report, stdout, ranks, group):
        self.assertEqual((report["backend"], report["ranks"], report["group"]), ("mpi", ranks, group))
        self.assertEqual((report["min_bytes"], report["max_bytes"], report["factor"]), (8, 65536, 2))
        self.assertEqual(len(report["rows"]), len(rows))
        for printed, stored in zip(rows, report["rows"]):
            self.assertEqual((stored["size"], stored["count"], stored["wrong"]),
                             (printed["size"], printed["count"], printed["wrong"]))
            self.assertAlmostEqual(stored["algbw"], printed["algbw"], delta=0.005 + 1e-9)
            self.assertAlmostEqual(stored["busbw"], stored["algbw"] * bus_factor(group), delta=1e-12)
            # The table's time keeps 2 decimals below 100 us, 1 below 10 ms, none above.
            self.assertAlmostEqual(stored["time_us"], printed["time_us"], delta=0.5 + 1e-9)
            self.assertAlmostEqual(stored["algbw"], stored["size"] / stored["time_us"] / 1e3,
                                   delta=1e-9 * stored["algbw"])
        mean = sum(r["busbw"] for r in report["rows"]) / len(report["rows"])
        self.assertAlmostEqual(report["avg_busbw"], mean, delta=1e-12)
        self.assertAlmostEqual(avg_bus_bandwidth(stdout), mean, delta=1e-5 * mean + 1e-12)

    def test_two_ranks(self):
        rows, report, stdout = self.bench(2, *SMALL)
        self.check_table(rows, report, stdout, group=2)
        self.check_json(rows, report, stdout, ranks=2, group=2)

    def test_four_ranks(self):
        rows, report, stdout = self.bench(4, *SMALL)
        self.check_table(rows, report, stdout, group=4)
        self.check_json(rows, report, stdout, ranks=4, group=4)

    def test_groups_of_two_on_four_ranks(self):
        rows, report, stdout = self.bench(4, *SMALL, "--group", "2")
        self.assertIn("4 ranks, 2 groups of 2", stdout)
        self.check_table(rows, report, stdout, group=2)
        self.check_json(rows, report, stdout, ranks=4, group=2)

    def test_size_suffixes_and_factor(self):
        rows, report, _ = self.bench(2, "--min", "1k", "--max", "1M", "--factor", "4", "--iters", "3", "--warmup", "1")
        self.assertEqual([r["size"] for r in rows], [1024, 4096, 16384, 65536, 262144, 1048576])
        self.assertEqual([r["wrong"] for r in rows], [0] * 6)
        self.assertEqual((report["iters"], report["warmup"]), (3, 1))

    def expect_usage_error(self, args, *needles, np=None):
        proc = run(["bench", *args], np=np)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        for needle in needles:
            self.assertIn(needle, lines[0])
        self.assertNotIn("# Avg bus bandwidth", proc.stdout)

    def test_bad_options(self):
        cases = [
            (["allreduce", "--backend", "gloo"], "--backend 'gloo'", "use mpi or nccl"),
            (["allreduce", "--min", "1M", "--max", "64K"], "--min 1M", "at most --max"),
            (["allreduce", "--max", "64K", "--factor", "1"], "--factor 1", "at least 2"),
            (["allreduce", "--iters", "0"], "--iters 0", "at least 1"),
            (["allreduce", "--min", "12X"], "--min '12X'", "K, M or G"),
            (["allreduce", "--max", "1T"], "--max '1T'", "K, M or G"),
            (["allreduce", "--min", "2"], "--min 2", "at least 4"),
            (["allgather"], "'allgather'", "use allreduce"),
        ]
        for args, *needles in cases:
            with self.subTest(args=args):
                self.expect_usage_error(args, *needles)

    def test_group_must_divide_the_ranks(self):
        self.expect_usage_error(["allreduce", *SMALL, "--group", "3"], "--group 3: does not divide the 4 ranks",
                                "1, 2, 4", np=4)

    def test_nccl_backend_without_a_gpu_or_nccl(self):
        # This machine has no GPU (a build without CUDA says so instead): exit 2 with the reason.
        self.expect_usage_error(["allreduce", "--backend", "nccl"], "bench allreduce --backend nccl: ", np=2)

    def test_unwritable_json(self):
        self.expect_usage_error(["allreduce", *SMALL, "--json", "/dev/null/x.json"], "--json /dev/null/x.json", np=2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
