"""gpus_per_rank (issue 24, point 8) in the environment a task sees: one process per rank sees N
GPUs, CUDA_VISIBLE_DEVICES with N entries packed by node (local rank 0 gets 0,1, local rank 1 gets
2,3), for exec tasks, workers and groups. The GPUs are a stand-in CUDA backend at the library's
dlopen seam (tests/support/fake_cuda_backend: 4 devices, SHARDRUN_CUDA_BACKEND), since this
machine has none; scripts/gpu-check runs the real one. A CPU build loads no backend: skipped."""
import os
import unittest

from harness import run, scratch_dir, task_stderr
from jobs import h5py_module, write_job

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")

# The task records what it was given: the first device, how many, and its MPI rank.
PROGRAM = r'''
import json, os, sys
visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
ids = [int(v) for v in visible.split(",")] if visible else []
values = {"first": ids[0] if ids else -1, "count": len(ids), "last": ids[-1] if ids else -1,
          "rank": int(os.environ["OMPI_COMM_WORLD_RANK"])}
if os.environ.get("SHARDRUN_WORKER"):
    answers = os.fdopen(int(os.environ.get("SHARDRUN_ANSWER_FD", "3")), "w", buffering=1)
    answers.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        task = json.loads(line)
        answers.write(json.dumps({"task_id": task["task_id"], "status": "ok", "results": values}) + "\n")
else:
    with open(os.environ["SHARDRUN_RESULT"], "w") as f:
        json.dump(values, f)
'''

JOB = """
name: gpr
task: exec
device: cuda
gpus_per_rank: 2
{extra}
sweep: {{x: [1, 2, 3, 4, 5, 6]}}
output: {{path: {out}}}
exec:
  {mode}
  argv: [/usr/bin/python3, {program}]
  results: {{first: int64, count: int64, last: int64, rank: int64}}
"""


@unittest.skipIf(FAKE_BACKEND is None, "a CPU build (SHARDRUN_CUDA=OFF) loads no CUDA backend, so no stand-in "
                                       "GPUs: gpus_per_rank's environment is NOT tested in this build")
class GpusPerRankTest(unittest.TestCase):
    def run_job(self, mode="", extra="", np=2):
        work = scratch_dir()
        program = os.path.join(work, "devices.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.format(extra=extra, out=out, mode=mode, program=program))
        proc = run(["run", job], np=np, env={"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4"})
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr + task_stderr(out))
        with h5py_module().File(out, "r") as f:
            return {k: f[f"results/{k}"][()].tolist() for k in ("first", "count", "last", "rank")}

    def assert_packed(self, got):
        self.assertEqual(set(got["count"]), {2}, got)
        for first, last, rank in zip(got["first"], got["last"], got["rank"]):
            # One node: local rank r sees GPUs 2r and 2r+1.
            self.assertEqual((first, last), (2 * rank, 2 * rank + 1), got)
        self.assertEqual(set(got["rank"]), {0, 1}, "both ranks ran tasks")

    def test_exec_tasks(self):
        self.assert_packed(self.run_job(extra="schedule: static"))

    def test_workers(self):
        self.assert_packed(self.run_job(mode="mode: worker", extra="schedule: static"))

    def test_groups(self):
        # One group of the two ranks per task (gpus_per_task: 2): its leader (rank 0, whose results
        # are kept) sees GPUs 0 and 1; the member on rank 1 has 2 and 3.
        got = self.run_job(extra="gpus_per_task: 2")
        self.assertEqual((set(got["first"]), set(got["last"]), set(got["count"]), set(got["rank"])), ({0}, {1}, {2}, {0}), got)

    def test_more_gpus_than_the_node_has_is_one_line(self):
        work = scratch_dir()
        program = os.path.join(work, "devices.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        out = os.path.join(work, "out.h5")
        job = write_job(work, JOB.format(extra="", out=out, mode="", program=program))
        proc = run(["run", job], np=3, env={"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4"})
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("gpus_per_rank: 2 needs GPUs 4..5 for local rank 2", proc.stdout + proc.stderr)


if __name__ == "__main__":
    unittest.main()
