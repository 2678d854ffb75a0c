"""Issue 25's slow-rank case: a dynamic job of 300 exec tasks on 2 ranks under osc/pt2pt over TCP
(as across nodes), where rank 0's tasks sleep 1 s and rank 1's are instant. Claims sized from the
claimant's own task time give rank 0 one task at a time, so it runs a few while rank 1 runs the
rest; the claim size of before (ceil(remaining / (4 x groups))) gave rank 0 38 at once. The test
reads who ran what from the results file's /tasks/rank; it asserts counts, never wall time (the
wall-time ratio against max_claim: 1 is a row of benchmarks/run)."""
import os
import tempfile
import unittest

from harness import run
from jobs import h5py_module, write_job

TASKS = 300
PT2PT_TCP = ["--mca", "osc", "pt2pt", "--mca", "btl", "self,tcp"]

SLOW_RANK0 = r'''
name: slow-rank0
task: exec
sweep: {i: {range: [0, TASKS, 1]}}
schedule: dynamic
output: {path: OUT/slow.h5}
exec:
  argv: [sh, -c, 'if [ "$SHARDRUN_RANK" = 0 ]; then sleep 1; fi; echo "{{\"v\": $((SHARDRUN_PARAM_I + 1))}}" > $SHARDRUN_RESULT']
  results: {v: int64}
'''

# Rank 0 runs one task, and one more for every second rank 1 needs for its ~300 process starts
# beyond the first: a few on a loaded machine. The old claims gave it 38 in its first claim.
MOST_FOR_THE_SLOW_RANK = 10


class SlowRankClaimsTest(unittest.TestCase):
    def test_the_slow_rank_claims_one_task_at_a_time(self):
        with tempfile.TemporaryDirectory(prefix="shardrun-slow-rank-") as work:
            job = write_job(work, SLOW_RANK0.replace("OUT", work).replace("TASKS", str(TASKS)))

            proc = run(["run", job, "-q"], np=2, extra_mpi=PT2PT_TCP, timeout=300)

            self.assertEqual(proc.returncode, 0, proc.stderr + proc.stdout)
            with h5py_module().File(os.path.join(work, "slow.h5"), "r") as f:
                self.assertTrue(bool(f.attrs["complete"]))
                self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS)
                self.assertEqual(f["tasks/attempts"][:].tolist(), [1] * TASKS)
                self.assertEqual(f["results/v"][:].tolist(), [i + 1 for i in range(TASKS)])
                ranks = f["tasks/rank"][:].tolist()
            slow = ranks.count(0)
            self.assertGreaterEqual(slow, 1, "rank 0 claimed nothing: its first claim must be one task")
            self.assertLessEqual(slow, MOST_FOR_THE_SLOW_RANK,
                                 f"rank 0 (1 s per task) ran {slow} of {TASKS} tasks: its claims were not sized "
                                 f"from its own task time (rank 0 ran ids "
                                 f"{[i for i, r in enumerate(ranks) if r == 0]})")
            self.assertEqual(ranks.count(1), TASKS - slow)


if __name__ == "__main__":
    unittest.main()
