"""docs/tutorials/mpirun-workstation.md as a reader follows it: the heat sweep's job file, `plan`, a run
under mpirun drained by SIGUSR1 after 5 s (exit 3, tasks left), `status` (exit 3), `--resume` to the end,
`table`, the xarray reads and `export --grid`, each command's quoted output checked against the real run.
Then what the page claims beyond its quotes: the resumed output has every task ok exactly once, and the
tasks the drain let finish were not run again."""
import os
import unittest

import tutorial_support
from jobs import h5py_module


class MpirunWorkstationTutorialTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        session.run(tutorial_support.page("mpirun-workstation"))
        h5py = h5py_module()
        with h5py.File(os.path.join(session.folder, "heat-study", "results", "heat-study.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 33, "every task ok exactly once")
            attempts = f["attempts/task"][:].tolist()
        self.assertEqual(sorted(set(attempts)), list(range(33)))
        drained = [code for step, code, _ in session.log if "--signal=USR1" in step.text]
        self.assertEqual(drained, [3], "the drain left tasks (exit 3)")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
