"""docs/job-file.md and docs/kernels.md as a reader follows them: The job file's `curves.yaml` (a result's
length from a parameter: the two refusals, the run, the h5py/xarray reading of task 1's curve) and its
misspelled program stopped by fail_fast, each quoted output checked against the real run; then each
page's job-file fragments (job_fragments.py): notify's keys merged into a noop job and train's
`params:` into a train job, each through `shardrun plan` (exit 0). Kernels' train sweep runs from a built
clone at -np 4 (about 10 s here). The every-key block at the top of
job-file.md is no job (its note says so); JobFields.* holds its keys to the parser's table."""
import os
import unittest

import job_fragments
import tutorial_support
from jobs import h5py_module


class JobFilePageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        steps = tutorial_support.docs_page("job-file.md")
        session.run(steps)
        with h5py_module().File(os.path.join(session.folder, "results", "curves.h5"), "r") as f:
            self.assertEqual(f["results/loss"].shape, (4, 5), "the stored axis is the largest {epochs}")
            self.assertEqual(f["results/loss_length"][:].tolist(), [3, 3, 5, 5])
        with h5py_module().File(os.path.join(session.folder, "results", "heat.h5"), "r") as f:
            self.assertEqual(sorted(f["tasks/status"][:].tolist()), [0] * 7 + [2] * 5, "5 failed, 7 not started")

        reference = [s for s in job_fragments.fragments(steps) if (s.note or "").startswith(job_fragments.NOT_A_JOB)]
        self.assertEqual([s.text.split()[:2] for s in reference], [["name:", "heat-sweep"]],
                         "only the every-key block is marked as no job")
        planned = job_fragments.check(self, session, steps, {"noop": {"name": "fragment", "task": "noop"}})
        self.assertEqual(len(planned), 1, "the notify: block")


class KernelsPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        session = tutorial_support.reader(self)
        tutorial_support.clone(session.folder)  # the page's train sweep runs from a built clone
        steps = tutorial_support.docs_page("kernels.md")
        session.run(steps)
        planned = job_fragments.check(self, session, steps, {"train": {"name": "fragment", "task": "train"}})
        self.assertEqual(len(planned), 1, "train's params: block")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
