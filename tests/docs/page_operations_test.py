"""docs/operations.md as a reader follows it: six greetings under mpirun, one failing (exit 1), `logs`
of an ok task, of the failed one's stderr, of its empty stdout (exit 1) and of a task the job does not
have (exit 2); a run of 1000 s tasks stopped by SIGTERM from `timeout` (exit 3) and its `status`
(exit 3); `report --html --stats` with the stats read by the page's one-liner, and a bad `--run-gap`
(exit 2); each quoted output checked against the real run. Then what the page says beyond its quotes:
the stopped run left no task process behind, ken's task is the one failed, and the report wrote its
PNG and HTML page."""
import os
import unittest

import tutorial_support
from jobs import h5py_module

class OperationsPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        session.run(tutorial_support.docs_page("operations.md"))
        self.assertEqual(session.processes(), [], "the stop left no `sleep 1000` behind")
        h5py = h5py_module()
        with h5py.File(os.path.join(session.folder, "results", "greet.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1, 1, 1, 1, 1, 2], "ken's task failed, the others ok")
        for name in ("results/greet.report.png", "greet.html"):
            self.assertTrue(os.path.getsize(os.path.join(session.folder, name)) > 0, name)


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
