"""docs/tutorials/slurm-array.md as a reader follows it, on a real one-node Slurm that scripts/slurm-local
starts for this test alone (its own directory and ports; stopped in a class cleanup, which cancels its
jobs): the checkpointing simulation and its job file, `submit --to slurm --dry-run` (quoted), the real
submit with `--time 1` (shorter than a task), the page's wait loop, element 0's log, `logs`, `status` and
`table`, each quoted output checked against the real run. Then what the page says happened: every element
was requeued at least once and ended COMPLETED, the merge job too; every task is ok once with its 30
steps' value, and each has an interrupted attempt before its last (the time limit cut it short, the
checkpoint carried it on). Never skipped: a cluster that cannot start fails the test with its logs."""
import os
import unittest

import tutorial_support
from jobs import h5py_module
from own_slurm import OwnSlurmTestCase

RATES = [0.5, 1.0, 1.5, 2.0]


class SlurmArrayTutorialTest(OwnSlurmTestCase):
    slurm_prefix = "shardrun-slurm-docs"

    def test_the_page_as_written(self):
        # What `eval "$(scripts/slurm-local env)"` gives the reader's shell; sbatch passes the environment on to
        # the jobs (only tests let Open MPI run as root: the ctest environment has those variables).
        session = tutorial_support.reader(self, self.reader_env())
        session.timeout = 1200  # the wait loop: 2 elements, one at a time on this node, each run at least twice
        try:
            session.run(tutorial_support.page("slurm-array"))
        except AssertionError as error:
            raise AssertionError(f"{error}\n----- scontrol show job -----\n" +
                                 "\n".join(map(str, self.jobs(session.env)))) from None

        records = self.jobs(session.env)
        elements = [r for r in records if r.get("ArrayTaskId", "").isdigit()]
        merges = [r for r in records if r.get("JobName") == "longsim-merge"]
        self.assertEqual(sorted(int(r["ArrayTaskId"]) for r in elements), [0, 1], records)
        for record in elements:
            self.assertEqual((record["JobState"], record["ExitCode"]), ("COMPLETED", "0:0"), record)
            self.assertGreaterEqual(int(record["Restarts"]), 1, f"the time limit requeued it: {record}")
        self.assertEqual([(r["JobState"], r["ExitCode"]) for r in merges], [("COMPLETED", "0:0")], merges)

        h5py = h5py_module()
        with h5py.File(os.path.join(session.cwd, "results", "longsim.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * len(RATES))
            self.assertEqual(f["results/value"][:].tolist(), [rate * 30 for rate in RATES])
            per_task = {}
            for task, interrupted in zip(f["attempts/task"][:].tolist(), f["attempts/interrupted"][:].tolist()):
                per_task.setdefault(task, []).append(interrupted)
        for task in range(len(RATES)):
            attempts = per_task[task]
            self.assertGreaterEqual(len(attempts), 2, f"task {task} was cut short by the time limit: {attempts}")
            self.assertEqual(attempts, [1] * (len(attempts) - 1) + [0], f"task {task}")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
