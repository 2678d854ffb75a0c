"""docs/launchers/slurm.md as a reader follows it, on a real one-node Slurm that scripts/slurm-local starts
for this test alone (its own directory and ports; stopped in a class cleanup, which cancels its jobs):
`submit --dry-run` (quoted) and the `#SBATCH` lines it wrote, the real submit of 2 elements of 2 ranks,
the page's wait loop, `status`, a partition the cluster lacks (exit 1, sbatch's refusal quoted), a
time limit no longer than the drain lead and a wrong `--sbatch signal` (exit 2), and `srun --mpi=none`
of `shardrun info` (exit 2, one line); each quoted output checked against the real run. Then what the page
says beyond its quotes: both elements and the merge job ended COMPLETED, every task is ok once, and the
refused submission left the folder's scripts as the accepted one wrote them. Never skipped: a cluster that
cannot start fails the test with its logs."""
import os
import unittest

import tutorial_support
from jobs import h5py_module
from own_slurm import OwnSlurmTestCase


class SlurmPageTest(OwnSlurmTestCase):
    slurm_prefix = "shardrun-slurm-snb"

    def test_the_page_as_written(self):
        # What `eval "$(scripts/slurm-local env)"` gives the reader's shell.
        session = tutorial_support.reader(self, self.reader_env())
        steps = tutorial_support.docs_page("launchers/slurm.md")
        script = os.path.join(session.folder, "results", "pricing.h5.submit", "slurm", "run.sbatch")
        refused = next(s for s in steps if "--partition nosuch" in s.text)
        try:
            session.run(steps[:steps.index(refused)])
            with open(script) as f:
                accepted = f.read()
            session.run(steps[steps.index(refused):])
        except AssertionError as error:
            raise AssertionError(f"{error}\n----- scontrol show job -----\n" +
                                 "\n".join(map(str, self.jobs(session.env)))) from None

        with open(script) as f:
            self.assertEqual(f.read(), accepted, "a refused submission changes nothing in the folder")
        records = self.jobs(session.env)
        elements = [r for r in records if r.get("JobName") == "pricing"]
        merges = [r for r in records if r.get("JobName") == "pricing-merge"]
        self.assertEqual(sorted(int(r["ArrayTaskId"]) for r in elements), [0, 1], records)
        for record in elements + merges:
            self.assertEqual((record["JobState"], record["ExitCode"]), ("COMPLETED", "0:0"), record)
        self.assertEqual(len(merges), 1, merges)
        h5py = h5py_module()
        with h5py.File(os.path.join(session.folder, "results", "pricing.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 8)
            self.assertEqual(sorted(f["attempts/task"][:].tolist()), list(range(8)), "each task ran once")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
