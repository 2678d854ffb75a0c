"""docs/concepts.md and docs/placement.md as a reader follows them: Concepts' job with one failing task
under mpirun -np 2 (run's exit 1, the summary's last line before Open MPI's note, `mpirun -q` without it)
and `status` of its output (exit 1, the failed task's reason), and Where tasks run's `plan` of a job on
two made-up nodes of 8 GPUs and as 3 array elements; each quoted output checked against the real run.
Then what the quotes leave out: the output holds the failed task with both its attempts."""
import os
import unittest

import tutorial_support
from jobs import h5py_module


class ConceptsPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        session.run(tutorial_support.docs_page("concepts.md"))
        with h5py_module().File(os.path.join(session.folder, "results", "exits.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1, 2, 1], "task 1 failed, the others ok")
            self.assertEqual(f["tasks/attempts"][:].tolist(), [1, 2, 1], "retries: 1 gave task 1 a second attempt")


class PlacementPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        steps = tutorial_support.docs_page("placement.md")
        self.assertTrue([s for s in steps if s.kind == "command"], "the page has commands to run")
        session.run(steps)


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
