"""docs/energy-cost.md as a reader follows it: 12 one-second tasks priced at a p5.48xlarge's node-hour
on 2 ranks, a budget of $0.10 that stops the run (exit 3, its summary quoted), `--resume --set
budget=1` that finishes it, `table` with `cost_usd`, `report --stats`, and `shardrun info`'s CPU energy
line; each quoted output checked against the real run. Then what the page says beyond its quotes: every
task ok, no task ran twice (one attempt each), and each task's cost is its seconds times half the
node's hourly price."""
import os
import unittest

import tutorial_support
from jobs import h5py_module

NODE_HOUR = 98.32  # p5.48xlarge in the page's table


class EnergyCostPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        session.run(tutorial_support.docs_page("energy-cost.md"))
        stopped = [code for step, code, _ in session.log if "budget=" not in step.text and "run frames" in step.text]
        self.assertEqual(stopped, [3], "the budget stopped the first run")
        h5py = h5py_module()
        with h5py.File(os.path.join(session.folder, "results", "frames.h5"), "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 12)
            self.assertEqual(sorted(f["attempts/task"][:].tolist()), list(range(12)), "no task ran twice")
            cost = f["tasks/cost_usd"][:]
            seconds = f["tasks/end"][:] - f["tasks/start"][:]
        for task, (usd, s) in enumerate(zip(cost, seconds)):
            self.assertAlmostEqual(usd, s / 3600 * NODE_HOUR / 2, places=9, msg=f"task {task}")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
