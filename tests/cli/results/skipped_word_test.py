"""`skipped` is a task state shardrun writes for no task (README, "Task states"), so `merge` and
`report` do not print "0 skipped" (issue 34, point 11); a file from an older shardrun that has
skipped tasks still gets them counted."""
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()


def page_summary(test, results, page):
    proc = run(["report", results, "--png", page + ".png", "--html", page])
    test.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
    with open(page) as f:
        return f.read()


class SkippedWordTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        job = write_job(self.work, f"""
            name: merged
            task: noop
            sweep: {{a: [1, 2, 3, 4]}}
            output: {{path: {self.work}/out.h5}}
            """)
        for index in ("0", "1"):
            proc = run(["run", job, "-q", "--array-index", index, "--array-count", "2"])
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.merged = run(["merge", f"{self.work}/out.h5"])
        self.assertEqual(self.merged.returncode, 0, self.merged.stdout + self.merged.stderr)

    def test_merge_and_report_name_no_state_never_written(self):
        self.assertIn(": 4 ok, 0 failed, 0 pending", self.merged.stdout)
        self.assertNotIn("skipped", self.merged.stdout)
        page = page_summary(self, f"{self.work}/out.h5", f"{self.work}/run.html")
        self.assertIn("4 tasks, 4 ok, 0 failed, 0 pending", page)
        self.assertNotIn("skipped", page)

    def test_an_older_file_with_skipped_tasks_is_counted(self):
        with h5py.File(f"{self.work}/out.h5", "r+") as f:
            status = f["tasks/status"]
            status[1] = 3  # `skipped` in the enum, as an older shardrun could write it
        page = page_summary(self, f"{self.work}/out.h5", f"{self.work}/old.html")
        self.assertIn("4 tasks, 3 ok, 0 failed, 1 skipped, 0 pending", page)


if __name__ == "__main__":
    unittest.main()
