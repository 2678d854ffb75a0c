"""`shardrun run` under every one-sided (osc) transport Open MPI may pick: osc/pt2pt over TCP (what
it picks across nodes without UCX or RDMA, open-mpi/ompi#2614), osc/ucx over UCX_TLS=tcp,self,
and the default. Block and dynamic sweeps at 2 and 4 ranks run every task exactly once; dynamic
claims progress while rank 0 is busy in long tasks; an exec group (gpus_per_task: 2, the
examples/exec-group rendezvous) completes with each leader's result naming its peer."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import MPIEXEC, SOURCE_DIR, run, scratch_dir, task_stderr
from jobs import h5py_module, write_job

TRANSPORTS = {
    "pt2pt": (["--mca", "osc", "pt2pt", "--mca", "btl", "self,tcp"], {}),
    "ucx": (["--mca", "osc", "ucx", "-x", "UCX_TLS"], {"UCX_TLS": "tcp,self"}),
    "default": ([], {}),
}
TASKS = 24

# Each task leaves marks/<task_id>.<pid> and writes v = 1000 + 7 * i.
SWEEP = r'''
name: osc
task: exec
sweep: {i: {range: [0, TASKS, 1]}}
schedule: SCHEDULE
output: {path: OUT/osc.h5}
exec:
  argv: [sh, -c, 'touch MARKS/{task_id}.$$; echo "{{\"v\": $((SHARDRUN_PARAM_I * 7 + 1000))}}" > $SHARDRUN_RESULT']
  results: {v: int64}
'''

# Tasks on rank 0 take 1 s; elsewhere they are instant. One task per claim, so rank 0 holds one
# task at a time and the others must keep claiming while it is busy.
SLOW_RANK0 = r'''
name: slow-rank0
task: exec
sweep: {i: {range: [0, 12, 1]}}
schedule: {kind: dynamic, max_claim: 1}
output: {path: OUT/slow.h5}
exec:
  argv: [sh, -c, 'if [ "$SHARDRUN_RANK" = 0 ]; then sleep 1; fi; echo "{{\"v\": $((SHARDRUN_PARAM_I + 1))}}" > $SHARDRUN_RESULT']
  results: {v: int64}
'''


def ompi_info():
    """ompi_info's component list, from the Open MPI that SHARDRUN_MPIEXEC belongs to."""
    mpiexec = os.path.realpath(shutil.which(MPIEXEC) or MPIEXEC)
    tool = os.path.join(os.path.dirname(mpiexec), "ompi_info")
    try:
        return subprocess.run([tool if os.path.exists(tool) else "ompi_info"], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return ""


class TransportTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)

    def run_job(self, text, name, np, transport, cwd=None, args=()):
        extra_mpi, env = TRANSPORTS[transport]
        directory = tempfile.mkdtemp(prefix=f"{name}-", dir=self.work)
        marks = os.path.join(directory, "marks")
        os.makedirs(marks)
        job = write_job(directory, text.replace("OUT", directory).replace("MARKS", marks).replace("TASKS", str(TASKS)))
        proc = run(["run", job, "-q", *args], np=np, env=env, extra_mpi=extra_mpi, cwd=cwd, timeout=120)
        self.assertEqual(proc.returncode, 0, f"{name} at -np {np} under osc {transport}:\n{proc.stderr}{proc.stdout}")
        return directory, marks

    def check_sweeps(self, transport):
        if transport == "ucx":
            listed = ompi_info()
            self.assertRegex(listed, r"MCA osc: ucx",
                             "Open MPI here has no osc/ucx component (ompi_info lists no 'MCA osc: ucx'); "
                             "install an Open MPI built --with-ucx (Debian's openmpi-bin is)")
        h5py = h5py_module()
        for schedule in ("block", "dynamic"):
            for np in (2, 4):
                with self.subTest(schedule=schedule, np=np):
                    directory, marks = self.run_job(SWEEP.replace("SCHEDULE", schedule), f"{schedule}-np{np}", np,
                                                    transport)
                    ids = sorted(int(os.path.basename(p).split(".")[0]) for p in glob.glob(marks + "/*"))
                    self.assertEqual(ids, list(range(TASKS)), "tasks not run exactly once")
                    with h5py.File(os.path.join(directory, "osc.h5"), "r") as f:
                        self.assertTrue(bool(f.attrs["complete"]))
                        self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS)
                        self.assertEqual(f["tasks/attempts"][:].tolist(), [1] * TASKS)
                        self.assertEqual(f["results/v"][:].tolist(), [1000 + 7 * i for i in range(TASKS)])
                        self.assertLessEqual(set(f["tasks/rank"][:].tolist()), set(range(np)))

    def check_claims_progress_while_rank0_is_busy(self, transport):
        directory, _ = self.run_job(SLOW_RANK0, "slow", 2, transport)
        h5py = h5py_module()
        with h5py.File(os.path.join(directory, "slow.h5"), "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 12)
            self.assertEqual(f["results/v"][:].tolist(), [i + 1 for i in range(12)])
            ranks = f["tasks/rank"][:].tolist()
        self.assertLessEqual(ranks.count(0), 3,
                             f"rank 0 (1 s per task) ran {ranks.count(0)} of 12 tasks: rank 1's claims stalled "
                             f"while rank 0 was busy (task ranks {ranks})")

    def check_exec_group(self, transport):
        directory = tempfile.mkdtemp(prefix="exec-group-", dir=self.work)
        out = os.path.join(directory, "exec-group.h5")
        extra_mpi, env = TRANSPORTS[transport]
        proc = run(["run", "examples/exec-group/exec-group.yaml", "--set", f"output.path={out}", "-q"], np=4, env=env,
                   extra_mpi=extra_mpi, cwd=SOURCE_DIR, timeout=300)
        self.assertEqual(proc.returncode, 0,
                         f"exec-group at -np 4 under osc {transport}:\n{proc.stderr}{proc.stdout}\n{task_stderr(out)}")
        h5py = h5py_module()
        with h5py.File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            n = len(f["tasks/status"])
            ids = list(range(n))
            self.assertEqual(n, 8)
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * n)
            self.assertEqual(f["results/rank"][:].tolist(), [0] * n)          # the leader's result counts
            self.assertEqual(f["results/world_size"][:].tolist(), [2] * n)
            self.assertEqual(f["results/peer_rank"][:].tolist(), [1] * n)
            self.assertEqual(f["results/peer_value"][:].tolist(), [10 * i + 1 for i in ids])
            self.assertEqual(f["results/peer_task_id"][:].tolist(), ids)

    def test_pt2pt_sweeps(self):
        self.check_sweeps("pt2pt")

    def test_ucx_sweeps(self):
        self.check_sweeps("ucx")

    def test_default_sweeps(self):
        self.check_sweeps("default")

    def test_pt2pt_claims_progress_while_rank0_is_busy(self):
        self.check_claims_progress_while_rank0_is_busy("pt2pt")

    def test_ucx_claims_progress_while_rank0_is_busy(self):
        self.check_claims_progress_while_rank0_is_busy("ucx")

    def test_default_claims_progress_while_rank0_is_busy(self):
        self.check_claims_progress_while_rank0_is_busy("default")

    def test_exec_group_on_one_host(self):
        self.check_exec_group("default")

    def test_exec_group_on_one_host_pt2pt(self):
        self.check_exec_group("pt2pt")


if __name__ == "__main__":
    unittest.main(verbosity=2)
