"""Issue 34, point 1 (cores) and the `-q` of point 11: a cloud element's tasks use every CPU the container
gives them. An exec task stores the CPUs it may run on (len(os.sched_getaffinity(0))) and the thread
variables it sees; the AWS Batch job files `shardrun submit` writes (one array element, an s3:// output on
moto's S3) run as the service would run them (tests/cloud/element_runner.py HostRunner: the generated
command and variables in a fresh HOME/TMPDIR), and the master it writes is read back from the bucket with
h5py.

The rule (docs/placement.md, "CPUs and threads"): the entrypoint starts mpirun with --bind-to none, so no rank is
pinned; every rank sees all the container's CPUs and each task gets OMP_NUM_THREADS (MKL_, OPENBLAS_,
BLIS_, NUMEXPR_NUM_THREADS, SHARDRUN_CPU_THREADS) = the CPUs over the ranks of the node (at least 1).
Checked at 1 and 2 ranks; a failed element's log does not end with Open MPI's banner (mpirun -q), and
when a rank is killed the entrypoint's own line says what mpirun's exit code means."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from element_runner import HostRunner  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import h5py_module  # noqa: E402

TASKS = 4
# What the task stores: its CPUs and the thread variables it was given (0: not set).
# No braces: exec.argv's {name} are placeholders.
PROBE = ("import json, os; v = lambda n: int(os.environ.get(n, '0')); "
         "json.dump(dict(cpus=len(os.sched_getaffinity(0)), rank=v('SHARDRUN_RANK'), omp=v('OMP_NUM_THREADS'), "
         "mkl=v('MKL_NUM_THREADS'), openblas=v('OPENBLAS_NUM_THREADS'), share=v('SHARDRUN_CPU_THREADS')), "
         "open(os.environ['SHARDRUN_RESULT'], 'w'))")
FIELDS = ("cpus", "rank", "omp", "mkl", "openblas", "share")
JOB = """\
name: cores
task: exec
sweep: {{x: {points}}}
output: {{path: {url}}}
exec:
  argv: {argv}
  results: {{{fields}}}
"""
MACHINE_CPUS = len(os.sched_getaffinity(0))  # what this test may use: the "container" the elements run in


class CloudCoresTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.S3(self.work)
        self.addCleanup(self.store.stop)

    def submit(self, name, ranks, argv, vcpus=MACHINE_CPUS):
        """Submits a job of TASKS exec tasks to aws-batch (1 element, `ranks` ranks, `vcpus` asked for); returns
        the runner and the container properties of the generated job definition."""
        project = os.path.join(self.work, name)
        os.makedirs(project)
        with open(os.path.join(project, "job.yaml"), "w") as f:
            f.write(JOB.format(points=list(range(TASKS)), url=self.store.url(f"{name}/cores.h5"), argv=json.dumps(argv),
                               fields=", ".join(f"{field}: int64" for field in FIELDS)))
        proc = run(["submit", "job.yaml", "--to", "aws-batch", "--array", "1", "--ranks-per-node", str(ranks),
                    "--vcpus", str(vcpus), "--workdir", "."], cwd=project, env=self.store.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        local = os.path.join(project, "cores.h5.submit", "aws-batch")
        with open(os.path.join(local, "entrypoint")) as f:
            runner = HostRunner(self, f.read())
        with open(os.path.join(local, "array-job.json")) as f:
            return runner, json.load(f)["containerProperties"]

    def element(self, name, ranks, argv, vcpus=MACHINE_CPUS):
        """Runs the job's one element as AWS Batch would (a single element writes the master itself)."""
        runner, container = self.submit(name, ranks, argv, vcpus)
        variables = {**{e["name"]: e["value"] for e in container["environment"]}, **self.store.env(),
                     "AWS_BATCH_JOB_ID": "c0re5", "AWS_BATCH_JOB_ATTEMPT": "1"}
        handle = runner.start(name, container["command"], variables)
        self.addCleanup(runner.stop, handle)
        return runner.finish(handle, 300)

    def results(self, name, ranks, vcpus=MACHINE_CPUS):
        code, out, err = self.element(name, ranks, ["python3", "-c", PROBE], vcpus)
        self.assertEqual(code, 0, out + err)
        path = os.path.join(self.work, f"{name}.h5")
        self.store.get(f"{name}/cores.h5", path)
        with h5py_module().File(path, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS, "every task ok")
            return [{field: int(f["results/" + field][i]) for field in FIELDS} for i in range(TASKS)]

    def check_threads(self, rows, threads):
        for row in rows:
            self.assertEqual((row["omp"], row["mkl"], row["openblas"], row["share"]), (threads,) * 4, row)

    def test_one_rank_sees_every_cpu(self):
        rows = self.results("one", 1)
        self.assertEqual([row["cpus"] for row in rows], [MACHINE_CPUS] * TASKS,
                         "a rank alone in its container is not pinned: its tasks run on every CPU")
        self.check_threads(rows, MACHINE_CPUS)

    def test_two_ranks_are_not_bound_and_split_the_threads(self):
        rows = self.results("two", 2)
        self.assertEqual([row["cpus"] for row in rows], [MACHINE_CPUS] * TASKS, "no rank is bound to a core")
        self.check_threads(rows, max(1, MACHINE_CPUS // 2))

    def test_threads_follow_the_vcpus_asked_for_not_the_host(self):
        # AWS Batch's VCPU is a weight on EC2: the container sees the whole host, so the threads follow
        # what was reserved (SHARDRUN_CPUS in the job definition), while the tasks stay unpinned.
        rows = self.results("reserved", 1, vcpus=1)
        self.assertEqual([row["cpus"] for row in rows], [MACHINE_CPUS] * TASKS, "still not pinned")
        self.check_threads(rows, 1)

    def test_a_failed_element_ends_with_our_lines_not_open_mpi_banner(self):
        code, out, err = self.element("fails", 2, ["python3", "-c", "raise SystemExit(5)"])
        self.assertEqual(code, 1, out + err)
        self.assertNotIn("Primary job", err, "mpirun -q: no banner when a rank exits non-zero")
        self.assertNotIn("-----", err)
        # The container's log ends with shardrun's summary (stdout) and, on stderr, its progress line and
        # then the failed tasks' reasons and last lines (point 4): nothing of Open MPI's after them.
        lines = err.strip().splitlines()
        progress = max(i for i, line in enumerate(lines) if "done 4/4 (0 ok, 4 failed)" in line)
        self.assertTrue(lines[progress + 1].startswith("shardrun: failed tasks' last stderr lines"), err)
        self.assertEqual(lines[progress + 2:], [f"  task {i}: exited with status 5" for i in range(4)], err)
        self.assertIn("0 ok, 4 failed of 4 tasks", out, out)
        self.assertTrue(out.strip().splitlines()[-1].startswith("  picture: shardrun report s3://"), out)

    def test_a_killed_rank_is_named_by_the_entrypoint(self):
        # Open MPI's own message is hidden by -q: the entrypoint says what mpirun's exit code means.
        code, out, err = self.element("killed", 1, ["python3", "-c", "import os; os.kill(os.getppid(), 9)"])
        self.assertEqual(code, 137, out + err)
        self.assertIn("shardrun-entrypoint: mpirun exited 137 (a rank killed by signal 9", err.strip().splitlines()[-1], err)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)
