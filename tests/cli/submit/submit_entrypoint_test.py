"""`shardrun submit --to aws-batch`: the generated command and environment run here, as AWS Batch
would run them, on a one-node cluster: array elements take the same task blocks as Slurm array
elements, SIGTERM drains and the container exits 3, and a multi-node job of one node runs the whole
job. The job files themselves are checked field by field in submit_test.py."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, kill_task_processes, run, scratch_dir
from jobs import h5py_module, write_job
# Helpers only (no TestCase: unittest.main() would run an imported one here too).
from submit_test import TASKS, Submission, env_of, mpi_env

h5py = h5py_module()

# Tasks that take a while (SLOW_SECONDS, default 1000): one is quick, so something is committed before the stop.
SLOW_JOB = r'''
name: slow
task: exec
sweep:
  x: {range: [0, 8, 1]}
output: {path: out/slow.h5}
exec:
  argv: [sh, -c, 'touch "$MARKS/{task_id}"; [ {x} = 0 ] || sleep ${{SLOW_SECONDS:-1000}}; printf "{{\"y\": %d}}" {x} > "$SHARDRUN_RESULT"']
  results: {y: float64}
'''


class AwsEntrypointTest(unittest.TestCase):
    """The generated command and environment, run here with the variables AWS Batch would set."""

    def run_container(self, s, definition, aws_variables, marks):
        container = definition.get("containerProperties") or definition["nodeProperties"]["nodeRangeProperties"][0]["container"]
        env = mpi_env({**env_of(container), **aws_variables, "MARKS": marks, "SHARDRUN_MPIRUN": MPIEXEC,
                       "SHARDRUN_NODE_ADDRESS": "127.0.0.1"})
        return subprocess.run(container["command"], capture_output=True, text=True, env=env, cwd="/", timeout=300)

    def marks_of(self, marks):
        return sorted(int(name) for name in os.listdir(marks))

    def test_array_elements_take_the_slurm_blocks(self):
        s = Submission(self, "aws-batch", "--array", "2", "--ranks-per-node", "2", "--shardrun", SHARDRUN,
                       "--set", "retries=1")
        definition = s.json("array-job.json")
        aws = {"AWS_BATCH_JOB_ID": "a1b2:1", "AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "2"}
        aws_marks = scratch_dir()
        element = self.run_container(s, definition, aws, aws_marks)
        self.assertEqual(element.returncode, 0, element.stdout + element.stderr)
        self.assertIn("array element 1 of 2 finished", element.stdout)
        reference_marks = scratch_dir()
        reference = run(["run", s.path("job.yaml"), "-q", "--set", "output.path=ref.h5", "--array-index", "1",
                         "--array-count", "2"], np=2, cwd=scratch_dir(), env={"MARKS": reference_marks, **mpi_env()})
        self.assertEqual(reference.returncode, 0, reference.stderr)
        self.assertEqual(self.marks_of(aws_marks), self.marks_of(reference_marks))
        self.assertEqual(self.marks_of(aws_marks), list(range(TASKS // 2, TASKS)))
        again = self.run_container(s, definition, {**aws, "AWS_BATCH_JOB_ATTEMPT": "2"}, aws_marks)
        self.assertEqual(again.returncode, 0, "a retried element resumes: " + again.stderr)
        slurm_marks = scratch_dir()
        first = run(["run", s.path("job.yaml"), "-q"], np=2, cwd=s.work,
                    env={"MARKS": slurm_marks, "SLURM_JOB_ID": "9", "SLURM_ARRAY_TASK_ID": "0",
                         "SLURM_ARRAY_TASK_COUNT": "2", **mpi_env()})
        self.assertEqual(first.returncode, 0, first.stderr)
        self.assertEqual(self.marks_of(slurm_marks), list(range(TASKS // 2)))
        merged = run(["merge", s.output])
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        with h5py.File(s.output, "r") as f:
            self.assertEqual(f["results/y"][:].tolist(), [float(x * x) for x in range(TASKS)])
            self.assertTrue(bool(f.attrs["complete"]))

    def test_sigterm_drains_and_exits_3(self):
        """A spot stop or job termination: SIGTERM to the container's first process (the entrypoint)
        drains shardrun; the container exits 3 with what finished committed, and a retry resumes."""
        work = scratch_dir()
        job = write_job(work, SLOW_JOB)
        proc = run(["submit", job, "--to", "aws-batch", "--array", "2", "--ranks-per-node", "2", "--shardrun", SHARDRUN,
                    "--shared-fs", work], cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        definition = os.path.join(work, "out", "slow.h5.submit", "aws-batch", "array-job.json")
        with open(definition) as f:
            container = json.load(f)["containerProperties"]
        marks = scratch_dir()
        aws = {"AWS_BATCH_JOB_ID": "e5f6:0", "AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "2"}
        env = mpi_env({**env_of(container), **aws, "MARKS": marks, "SHARDRUN_MPIRUN": MPIEXEC, "SHARDRUN_DRAIN_SECONDS": "2"})
        element = subprocess.Popen(container["command"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=env, cwd="/", start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while len(os.listdir(marks)) < 3 and time.monotonic() < deadline and element.poll() is None:
                time.sleep(0.1)
            self.assertGreaterEqual(len(os.listdir(marks)), 3, "the element started its tasks")
            element.send_signal(signal.SIGTERM)  # what `docker stop` sends the container's PID 1
            out, err = element.communicate(timeout=120)
        finally:
            if element.poll() is None:
                os.killpg(element.pid, signal.SIGKILL)
                element.communicate()
            kill_task_processes(work)
        self.assertEqual(element.returncode, 3, out + err)
        self.assertIn("SIGTERM", err)
        retry = subprocess.run(container["command"], capture_output=True, text=True, cwd="/", timeout=300,
                               env={**env, "AWS_BATCH_JOB_ATTEMPT": "2", "SLOW_SECONDS": "0"})
        self.assertEqual(retry.returncode, 0, retry.stdout + retry.stderr)
        self.assertIn("array element 0 of 2 finished", retry.stdout)

    def test_multinode_job_of_one_node(self):
        s = Submission(self, "aws-batch", "--nodes", "1", "--ranks-per-node", "2", "--shardrun", SHARDRUN)
        aws = {"AWS_BATCH_JOB_ID": "c3d4#0", "AWS_BATCH_JOB_NODE_INDEX": "0", "AWS_BATCH_JOB_MAIN_NODE_INDEX": "0",
               "AWS_BATCH_JOB_NUM_NODES": "1"}
        marks = scratch_dir()
        proc = self.run_container(s, s.json("multinode-job.json"), aws, marks)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.marks_of(marks), list(range(TASKS)))
        rendezvous = s.path(os.path.join("hosts", "c3d4-1"))
        with open(os.path.join(rendezvous, "hostfile")) as f:
            self.assertEqual(f.read(), "127.0.0.1 slots=2\n")
        with open(os.path.join(rendezvous, "done")) as f:
            self.assertEqual(f.read(), "exit 0\n")
        with h5py.File(s.output, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS)
            self.assertEqual(int(f.attrs["world_size"]), 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
