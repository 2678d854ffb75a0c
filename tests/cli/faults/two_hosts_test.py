"""`shardrun` over two hosts (network namespaces with their own hostnames, see two_hosts.py), -np 4
with 2 slots per host: info sees 2 nodes; static and dynamic exec sweeps and an exec-group
(gpus_per_task: 2) sweep complete with correct results from both hosts. Needs root: it fails,
not skips, when the hosts cannot be set up."""
import json
import os
import unittest

from harness import SOURCE_DIR, scratch_dir, task_stderr
from jobs import h5py_module, write_job, task_labels
from two_hosts import TwoHosts

NP = 4

SWEEP = r'''
name: two-hosts
task: exec
sweep: {i: {range: [0, 16, 1]}}
schedule: SCHEDULE
output: {path: OUT/sweep.h5}
exec:
  argv: [sh, -c, 'hostname; echo "{{\"v\": $((SHARDRUN_PARAM_I * 7 + 1000))}}" > $SHARDRUN_RESULT']
  results: {v: int64}
'''


class TwoHostsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.hosts = cls.enterClassContext(TwoHosts(slots=2))

    def setUp(self):
        self.work = scratch_dir(self)

    def run_ok(self, args, **kwargs):
        proc = self.hosts.run_mpi(NP, args, **kwargs)
        self.assertEqual(proc.returncode, 0, f"shardrun {' '.join(args)} over two hosts:\n{proc.stderr}{proc.stdout}")
        return proc

    # a. ---------------------------------------------------------------------------------------
    def test_info_reports_two_nodes_with_two_local_ranks_each(self):
        report = json.loads(self.run_ok(["info", "--json"]).stdout)
        a, b = self.hosts.hosts
        self.assertEqual(report["world_size"], NP)
        self.assertEqual(report["nodes"], 2)
        self.assertEqual(sorted(report["hosts"]), [a, b])
        by_host = {}
        for r in report["ranks"]:
            by_host.setdefault(r["host"], []).append(r)
        self.assertEqual(sorted(by_host), [a, b])
        for host, ranks in by_host.items():
            self.assertEqual(sorted(r["local_rank"] for r in ranks), [0, 1], host)
            self.assertEqual([r["local_size"] for r in ranks], [2, 2], host)
        # mpirun fills the first host's slots first
        self.assertEqual([r["host"] for r in sorted(report["ranks"], key=lambda r: r["rank"])], [a, a, b, b])

        table = self.run_ok(["info"]).stdout
        self.assertIn("4 ranks on 2 nodes", table)
        self.assertRegex(table, rf"\n\s+3\s+{b}\s+1/2\s")

    # b. ---------------------------------------------------------------------------------------
    def check_sweep(self, schedule):
        job = write_job(self.work, SWEEP.replace("SCHEDULE", schedule).replace("OUT", self.work))
        self.run_ok(["run", job, "--progress", "plain"])
        h5py = h5py_module()
        path = os.path.join(self.work, "sweep.h5")
        with h5py.File(path, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 16)
            self.assertEqual(f["results/v"][:].tolist(), [i * 7 + 1000 for i in range(16)])
            hosts = task_labels(f, "host")
            ranks = f["tasks/rank"][:].tolist()
        self.assertEqual(sorted(set(hosts)), sorted(self.hosts.hosts), f"{schedule}: tasks ran on {hosts}")
        for task, (host, rank) in enumerate(zip(hosts, ranks)):
            # ranks 0, 1 on the first host, 2, 3 on the second; the task printed where it really ran
            self.assertEqual(host, self.hosts.hosts[rank // 2], f"task {task} on rank {rank}")
            with open(os.path.join(path + ".tasks", str(task), "stdout")) as out:
                self.assertEqual(out.read().strip(), host, f"task {task}")

    def test_static_sweep(self):
        self.check_sweep("block")

    def test_dynamic_sweep(self):
        self.check_sweep("dynamic")

    # c. ---------------------------------------------------------------------------------------
    def test_exec_group_rendezvous_example(self):
        out = os.path.join(self.work, "exec-group.h5")
        args = ["run", "examples/exec-group/exec-group.yaml", "--set", f"output.path={out}", "--progress", "plain"]
        proc = self.hosts.run_mpi(NP, args, cwd=SOURCE_DIR)
        self.assertEqual(proc.returncode, 0, f"exec-group over two hosts:\n{proc.stderr}{proc.stdout}\n{task_stderr(out)}")
        h5py = h5py_module()
        with h5py.File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            status = f["tasks/status"][:].tolist()
            n = len(status)
            self.assertEqual(n, 8)
            self.assertEqual(status, [1] * n)
            ids = list(range(n))
            self.assertEqual(f["results/task_id"][:].tolist(), ids)
            self.assertEqual(f["results/rank"][:].tolist(), [0] * n)          # the leader's result counts
            self.assertEqual(f["results/world_size"][:].tolist(), [2] * n)
            self.assertEqual(f["results/peer_rank"][:].tolist(), [1] * n)
            self.assertEqual(f["results/peer_value"][:].tolist(), [10 * i + 1 for i in ids])
            self.assertEqual(f["results/peer_task_id"][:].tolist(), ids)
            hosts = task_labels(f, "host")
        self.assertTrue(set(hosts) <= set(self.hosts.hosts), hosts)


if __name__ == "__main__":
    unittest.main(verbosity=2)
