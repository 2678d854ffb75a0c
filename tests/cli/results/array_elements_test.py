"""Array elements that do not belong together (issue 23, point 3): an element of another job or
of another --array-count is refused at start (exit 2, one line naming both, nothing written), and
status and merge name such elements (status exit 1, merge exit 2, nothing merged)."""
import os
import shutil
import unittest

from harness import run, scratch_dir
from jobs import write_job

JOB = """
name: NAME
task: exec
sweep: {a: {range: [0, 12, 1]}, b: [BVALUE]}
exec:
  argv: [sh, -c, 'echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT}
"""


def job(work, name, b, out):
    return write_job(work, JOB.replace("NAME", name).replace("BVALUE", str(b)).replace("OUT", out), name=name + ".yaml")


def element(job_file, index, count, np=None, extra=()):
    return run(["run", job_file, "-q", "--array-index", str(index), "--array-count", str(count), *extra], np=np)


def lines(text):
    """Our lines (mpirun adds its banner after a non-zero exit; issue 23, point 13)."""
    return [line for line in text.splitlines() if line.startswith("shardrun:")]


class ArrayElementsTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "out.h5")
        self.a = job(self.work, "jobA", 1, self.out)
        self.b = job(self.work, "jobB", 2, self.out)

    def assert_refused(self, proc, *words):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(lines(proc.stderr)), 1, proc.stderr)
        for word in words:
            self.assertIn(word, proc.stderr)
        self.assertFalse(os.path.exists(self.out + ".shards/a1"), "a refused element wrote its folder")

    def test_element_of_another_job_is_refused_at_start(self):
        for np in (1, 2, 4):
            with self.subTest(np=np):
                shutil.rmtree(self.out + ".shards", ignore_errors=True)
                self.assertEqual(element(self.a, 0, 2, np=np).returncode, 0)

                proc = element(self.b, 1, 2, np=np)

                self.assert_refused(proc, "'jobA'", "'jobB'", "job hash", "array element 0")

    def test_element_with_another_array_count_is_refused_at_start(self):
        for np in (1, 2):
            with self.subTest(np=np):
                shutil.rmtree(self.out + ".shards", ignore_errors=True)
                self.assertEqual(element(self.a, 0, 2, np=np).returncode, 0)

                proc = element(self.a, 1, 3, np=np)

                self.assert_refused(proc, "--array-count 2", "--array-count 3")

    def test_force_does_not_mix_jobs_either(self):
        self.assertEqual(element(self.a, 0, 2).returncode, 0)

        proc = element(self.b, 1, 2, extra=["--force"])

        self.assert_refused(proc, "'jobA'", "'jobB'")

    def place_element(self, job_file, index, count):
        """An element that got in anyway (a run from before this check, or a folder copied by hand)."""
        other = os.path.join(self.work, "other.h5")
        proc = run(["run", job_file, "-q", "--array-index", str(index), "--array-count", str(count),
                    "--set", "output.path=" + other])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        shutil.move(f"{other}.shards/a{index}", f"{self.out}.shards/a{index}")
        shutil.rmtree(other + ".shards", ignore_errors=True)

    def assert_named_by_status_and_merge(self, *words):
        status = run(["status", self.out])
        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)  # not complete, no run going on
        self.assertIn("NOT complete", status.stdout)
        self.assertNotIn("all have finished", status.stdout)
        for word in words:
            self.assertIn(word, status.stdout)

        merge = run(["merge", self.out])

        self.assertEqual(merge.returncode, 2, merge.stdout + merge.stderr)
        self.assertEqual(len(lines(merge.stderr)), 1, merge.stderr)
        for word in words:
            self.assertIn(word, merge.stderr)
        self.assertFalse(os.path.exists(self.out), "merge wrote a master over mismatched elements")

    def test_status_and_merge_name_an_element_of_another_job(self):
        self.assertEqual(element(self.a, 0, 2).returncode, 0)
        self.place_element(self.b, 1, 2)

        self.assert_named_by_status_and_merge("array element 1 belongs to job 'jobB'", "'jobA'")

    def test_status_and_merge_name_elements_of_another_count(self):
        self.assertEqual(element(self.a, 0, 2).returncode, 0)
        self.place_element(self.a, 1, 3)
        self.place_element(self.a, 2, 3)

        self.assert_named_by_status_and_merge("array element 1 was run with --array-count 3",
                                              "array element 2 was run with --array-count 3")

    def test_matching_elements_merge(self):
        for index in (0, 1):
            self.assertEqual(element(self.a, index, 2, np=2).returncode, 0)

        merge = run(["merge", self.out])

        self.assertEqual(merge.returncode, 0, merge.stderr)
        self.assertIn("12 ok", merge.stdout)


if __name__ == "__main__":
    unittest.main()
