"""shardrun --help/--version, usage errors and `shardrun info` under mpiexec."""
import json
import unittest

from harness import run


class UsageTest(unittest.TestCase):
    def test_help_lists_commands(self):
        proc = run(["--help"])
        self.assertEqual(proc.returncode, 0)
        self.assertIn("info", proc.stdout)

    def test_version(self):
        proc = run(["--version"])
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.stdout, r"^shardrun \d+\.\d+\.\d+")

    def test_subcommand_help(self):
        proc = run(["info", "--help"])
        self.assertEqual(proc.returncode, 0)
        self.assertIn("--json", proc.stdout)
        self.assertIn("--array-count", proc.stdout)

    def test_no_arguments_is_usage_error(self):
        proc = run([])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("usage:", proc.stderr)

    def test_unknown_subcommand_is_usage_error(self):
        proc = run(["frobnicate"])
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("unknown command 'frobnicate'; the commands are run, ", proc.stderr)
        self.assertIn("(see shardrun --help)", proc.stderr)

    def test_unknown_option_is_one_line_pointing_at_help(self):
        proc = run(["info", "--no-such-option"])
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("no-such-option", proc.stderr)
        self.assertIn("(see shardrun info --help)", proc.stderr)


class InfoTest(unittest.TestCase):
    def info_json(self, np, env=None, args=()):
        proc = run(["info", "--json", *args], np=np, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout)

    def test_four_ranks_on_one_node(self):
        report = self.info_json(4)
        self.assertEqual(report["world_size"], 4)
        self.assertEqual(report["nodes"], 1)
        self.assertEqual(len(report["ranks"]), 4)
        self.assertEqual(sorted(r["local_rank"] for r in report["ranks"]), [0, 1, 2, 3])
        self.assertEqual(report["scheduler"]["name"], "mpirun")
        self.assertTrue(report["build"]["hdf5_parallel"])
        self.assertIn("MPI", report["build"]["libraries"])

    def test_slurm_array_position(self):
        report = self.info_json(2, env={"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8"})
        self.assertEqual((report["array"]["index"], report["array"]["count"]), (3, 8))
        self.assertEqual(report["scheduler"]["name"], "slurm")

    def test_aws_batch_array_position(self):
        report = self.info_json(2, env={"AWS_BATCH_JOB_ARRAY_INDEX": "5", "AWS_BATCH_JOB_ARRAY_SIZE": "10"})
        self.assertEqual((report["array"]["index"], report["array"]["count"]), (5, 10))
        self.assertEqual(report["scheduler"]["name"], "aws-batch")

    def test_override_wins(self):
        report = self.info_json(1, env={"BATCH_TASK_INDEX": "1", "BATCH_TASK_COUNT": "3"},
                                args=["--array-index", "0", "--array-count", "2"])
        self.assertEqual((report["array"]["index"], report["array"]["count"]), (0, 2))

    def test_index_beyond_count_exits_2_with_one_clear_line(self):
        proc = run(["info"], np=2, env={"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "8"})
        self.assertEqual(proc.returncode, 2)
        self.assertIn("array index 9", proc.stderr)
        self.assertIn("outside 0..7", proc.stderr)

    def test_table_has_a_row_per_rank(self):
        proc = run(["info"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("2 ranks on 1 node", proc.stdout)
        self.assertRegex(proc.stdout, r"\n\s+1\s+\S+\s+1/2\s+(cpu|cuda:\d+)")


if __name__ == "__main__":
    unittest.main(verbosity=2)
