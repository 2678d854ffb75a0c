"""Results stored once for data-chunk fields (issue 11, point 6): a field declared with `rows`
is one array over the items in the master ([items, ...], task t's rows after the rows of the
tasks before it), and the master alone still serves every later reader task by task: after a
complete run at 2 ranks the segments are gone, `--resume` reruns a failed task from the old
master plus its new segments, `merge` of an array job drops the elements, `status` counts from
the master, and both layouts end with the same values. Chunks of 6 over 20 items leave a short
last chunk of 2 rows, and a sweep of 2 points puts the items of both points one after the other."""
import os
import unittest

from harness import run, scratch_dir, sha256_of, status_json, stored_result_files
from jobs import h5py_module, write_job

CHUNKS = [(s, start, min(start + 6, 20)) for s in (0, 1) for start in range(0, 20, 6)]
TASKS = len(CHUNKS)  # 8
ITEMS = 40
FAILING = 3  # fails until the file `fixed` exists: its rows are those of a short last chunk
# Row i of point s is [1000 s + i, -i]; the rows go out as JSON arrays of the chunk's length.
JOB = r"""
name: rows
task: exec
sweep: {s: [0, 1]}
data: {items: 20, chunk: 6}
exec:
  argv: [sh, -c, 'if [ ! -e OUT/fixed ] && [ $SHARDRUN_TASK_ID -eq FAILING ]; then exit 5; fi;
    r=""; i=$SHARDRUN_RANGE_START; while [ $i -lt $SHARDRUN_RANGE_END ]; do
    r="$r${{r:+,}}[$((1000 * SHARDRUN_PARAM_S + i)), -$i]"; i=$((i + 1)); done;
    echo "{{\"e\": [$r], \"n\": $((SHARDRUN_RANGE_END - SHARDRUN_RANGE_START))}}" > $SHARDRUN_RESULT']
  results:
    e: [float64, rows, 2]
    n: int64
output: {path: OUT/rows.h5, layout: {layout}}
"""


def expected_rows(failed=()):
    """The master's results/e over the items, NaN rows for a failed task."""
    rows = []
    for task, (s, start, end) in enumerate(CHUNKS):
        for i in range(start, end):
            rows.append(None if task in failed else [1000.0 * s + i, -float(i)])
    return rows


class StoredOnceRowsTest(unittest.TestCase):
    def start(self, layout="shards"):
        self.work = scratch_dir()
        text = JOB.replace("OUT", self.work).replace("{layout}", layout).replace("FAILING", str(FAILING))
        self.job = write_job(self.work, text)
        self.out = os.path.join(self.work, "rows.h5")

    def fix(self):
        open(os.path.join(self.work, "fixed"), "w").close()

    def result_files(self):
        return stored_result_files(self.out)

    def check_master(self, failed=()):
        with h5py_module().File(self.out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            status = list(f["tasks/status"][:])
            e = f["results/e"][:]
            n = list(f["results/n"][:])
        self.assertEqual(e.shape, (ITEMS, 2))
        for task, (_, start, end) in enumerate(CHUNKS):
            self.assertEqual(status[task], 2 if task in failed else 1, task)
            if task not in failed:
                self.assertEqual(n[task], end - start, task)
        for item, row in enumerate(expected_rows(failed)):
            if row is None:
                self.assertTrue(all(v != v for v in e[item]), (item, list(e[item])))
            else:
                self.assertEqual(list(e[item]), row, item)

    def status(self):
        code, report = status_json(self.out)
        self.assertIsNotNone(report, code)
        return code, report

    def test_a_complete_run_drops_its_shards_and_resume_and_merge_keep_the_master(self):
        self.start()
        self.fix()
        first = run(["run", self.job, "-q"], np=2)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)

        self.check_master()
        self.assertEqual(self.result_files(), [], "a complete master holds the rows: the shards store them twice")
        code, status = self.status()
        self.assertEqual((code, status["ok"], status["pending"], status["complete"]), (0, TASKS, 0, True))
        before = sha256_of(self.out)
        merged = run(["merge", self.out])
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.assertEqual(sha256_of(self.out), before, "merge rewrote a complete master")
        resumed = run(["run", self.job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.assertEqual(sha256_of(self.out), before, "--resume of a complete job changed the master")

    def test_a_resume_reads_every_other_task_back_from_the_master(self):
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                self.start(layout)
                first = run(["run", self.job, "-q"], np=2)
                self.assertEqual(first.returncode, 1, first.stdout + first.stderr)
                self.check_master(failed=(FAILING,))
                self.assertEqual(self.result_files(), [], "failures are final: the run is complete")
                self.fix()

                resumed = run(["run", self.job, "-q", "--resume"], np=2)

                self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
                self.assertNotIn("warning", resumed.stderr)
                self.check_master()
                self.assertEqual(self.result_files(), [])
                code, status = self.status()
                self.assertEqual((code, status["ok"], status["failed"]), (0, TASKS, 0))

    def test_an_array_job_merges_its_elements_and_drops_them(self):
        self.start()
        self.fix()
        for index in (0, 1):
            proc = run(["run", self.job, "-q", "--array-index", str(index), "--array-count", "2"], np=2)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)

        merged = run(["merge", self.out])

        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.check_master()
        self.assertEqual(self.result_files(), [])
        before = sha256_of(self.out)
        again = run(["merge", self.out])
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual(sha256_of(self.out), before)
        resumed = run(["run", self.job, "-q", "--resume", "--array-index", "1", "--array-count", "2"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stdout + resumed.stderr)
        self.check_master()


if __name__ == "__main__":
    unittest.main()
