"""`shardrun` over four hosts (network namespaces on one bridge, n_hosts.py), -np 8 with 2
slots per host: a 300-task dynamic exec sweep completes with every id once, tasks ran on all four
hosts, and `--progress json` carries the end phases in order with the summary's "end" (issue 36,
point 5; benchmarks/run --only run_end times them). Then the hosts' cleanup leaves no namespace of
this process behind. Needs root: it fails, not skips, when the hosts cannot be set up."""
import os
import subprocess
import unittest

from end_phases_check import ORDER, check_end_phases
from harness import scratch_dir
from jobs import h5py_module, task_labels, write_job
from n_hosts import NHosts

NP = 8
TASKS = 300


class FourHostsEndTest(unittest.TestCase):
    def test_run_over_four_hosts_ends_with_its_phases(self):
        work = scratch_dir(self)
        output = os.path.join(work, "four.h5")
        job = write_job(work, f"""
name: four-hosts
task: exec
sweep: {{i: {{range: [0, {TASKS}, 1]}}}}
output: {{path: {output}}}
exec:
  argv: [sh, -c, 'echo "{{{{\\"v\\": $((SHARDRUN_PARAM_I * 3))}}}}" > $SHARDRUN_RESULT']
  results: {{v: int64}}
""")
        with NHosts(4, slots=2) as hosts:
            names = hosts.hosts
            proc = hosts.run_mpi(NP, ["run", job, "--progress", "json"])
            self.assertEqual(proc.returncode, 0, proc.stderr + proc.stdout)
            _, summary = check_end_phases(self, proc.stdout, ORDER)
            self.assertEqual((summary["ok"], summary["failed"]), (TASKS, 0))
        h5py = h5py_module()
        with h5py.File(output, "r") as f:
            self.assertEqual(list(f["results"]["v"][:]), [3 * i for i in range(TASKS)])
            self.assertEqual(sorted(set(task_labels(f, "host"))), sorted(names))
            self.assertEqual(sorted(set(int(r) for r in f["tasks"]["rank"][:])), list(range(NP)))
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        for name in (*names, hosts.switch):
            self.assertNotIn(name, left)


if __name__ == "__main__":
    unittest.main()
