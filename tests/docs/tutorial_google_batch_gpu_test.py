"""docs/tutorials/google-batch-gpu.md as a reader follows it, with the GCS emulator as `gs://my-bucket`: the
GEMM job file, `shardrun submit --to gcp-batch` with an L4 per VM (quoted output), the GPU fields of the
generated job.json (printed by the page's script, quoted). What the page's `bash` blocks do on Google
Cloud is stood in for: no image is built, and the 2 tasks run here as Batch would run them
(tests/cloud/element_runner.py: the job's command and environment plus BATCH_TASK_*, a fresh HOME and
TMPDIR each), the last one merging. Then the page's reading commands (`status`, `table` and `export
--parquet` of the gs:// URL, the pandas script), each quoted output checked; the master in the bucket has
the 6 tasks ok once, and the merge markers are gone."""
import json
import os
import unittest

import cloud_servers
import page_snippets
import tutorial_support
from element_runner import HostRunner

TASKS = 6


class GoogleBatchGpuTutorialTest(unittest.TestCase):
    def setUp(self):
        self.store = cloud_servers.GCS(tutorial_support.scratch_dir(self), bucket="my-bucket")
        self.addCleanup(self.store.stop)

    def test_the_page_as_written(self):
        steps = tutorial_support.page("google-batch-gpu")
        session = tutorial_support.reader(self, self.store.env())
        session.run([s for s in steps if not s.section.startswith("5.")])

        submit = os.path.join(session.cwd, "gemm-gpu.h5.submit", "gcp-batch")
        with open(os.path.join(submit, "entrypoint")) as f:
            runner = HostRunner(self, f.read())
        with open(os.path.join(submit, "job.json")) as f:
            job = json.load(f)
        group = job["taskGroups"][0]
        self.assertEqual(group["taskCount"], 2)
        container = group["taskSpec"]["runnables"][0]["container"]
        command = [container["entrypoint"], *container["commands"]]
        for index in (0, 1):  # one after the other: task 1 finishes last and merges
            variables = {**group["taskSpec"]["environment"]["variables"], **self.store.env(),
                         "BATCH_TASK_INDEX": str(index), "BATCH_TASK_COUNT": "2", "BATCH_TASK_RETRY_ATTEMPT": "0",
                         "BATCH_JOB_ID": "gemm-gpu", "PATH": "/usr/bin:/bin"}
            handle = runner.start(f"t{index}", command, variables)
            self.addCleanup(runner.stop, handle)
            code, out, err = runner.finish(handle, 600)
            self.assertEqual(code, 0, f"task {index}:\n{out}{err}")
        self.assertIn("merging the 2 array elements", err, "the last task merges")

        session.run(page_snippets.section(steps, "5."))
        self.assertEqual(self.store.keys("gpu/gemm-gpu.h5.submit/gcp-batch/final/"), [], "the markers go once merged")
        code, printed = session.command(
            """python3 -c 'import pyarrow.parquet as pq; print(pq.read_table("gemm-gpu.parquet").to_pandas().status.tolist())'""")
        self.assertEqual((code, printed), (0, [str(["ok"] * TASKS)]), "every task ok once, read with the reader's pandas")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)
