"""Issue 34, point 10: cloud jobs of several nodes, each node a separate machine that shares nothing
but the bucket, run exactly as the generated job files say.

AWS Batch multi-node parallel job (CLOUD_BACKEND=s3, needs root): `submit --to aws-batch --nodes 2
--ranks-per-node 2`; the two nodes are containers of tests/cloud/container_nodes.py (a network
namespace each, a private root at the same path, mpirun's ssh entering the other node with a login
environment only); moto's S3 listens in the main node's namespace on its veth address, which both
nodes reach. Each node runs the command of multinode-job.json with its variables and the ones AWS
Batch sets (AWS_BATCH_JOB_ID, _NODE_INDEX, _MAIN_NODE_INDEX, _NUM_NODES, _ATTEMPT). A clean run and
a run whose second node is SIGKILLed mid-run (then the job's retry, attempt 2, on fresh nodes) both
end with a master in the bucket, read back with h5py: every task ok once, values right, tasks run on
both hosts, and after the kill the tasks the bucket had are kept, not run again.

Google Cloud Batch (CLOUD_BACKEND=gcs): two tasks of 2 ranks, each task a fresh machine (own HOME and
TMPDIR, tests/cloud/element_runner.py); task 1 is SIGKILLed mid-run (its VM lost), task 0 finishes,
task 1's retry resumes from the bucket and, being last, merges."""
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from container_nodes import ContainerNodes  # noqa: E402
from element_runner import HostRunner  # noqa: E402
from harness import MPIEXEC, SHARDRUN, clean_env, scratch_dir  # noqa: E402
from jobs import h5py_module, task_labels  # noqa: E402

TASKS = 12
# tools/square.sh X: y = X * X; the task whose X is $SLOW sleeps first (it keeps the run going until the kill).
SQUARE = """#!/bin/sh
if [ "$1" = "${SLOW:-}" ]; then sleep 1000; fi
printf '{"y": %d}' $(($1 * $1)) > "$SHARDRUN_RESULT"
"""
JOB = """\
name: squares
task: exec
sweep:
  points_file: points.json
retries: 0
schedule: static  # each rank its block of ids: the second node's ranks run tasks whenever they start
output: {path: URL}
exec:
  argv: [../tools/square.sh, "{x}"]
  results: {y: float64}
"""
SEGMENT = re.compile(r"\.shards/a(\d+)/r(\d+)/\d+\.h5$")  # a committed segment of element a, rank r
SHORT_WAITS = {"SHARDRUN_UPLOAD_INTERVAL": "0.3", "SHARDRUN_DRAIN_SECONDS": "2", "SHARDRUN_MERGE_SETTLE": "1"}


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


def make_project(work, url):
    """The submitting machine's project: a tool, a job and its points file."""
    project = os.path.join(work, "submitter", "proj")
    write(os.path.join(project, "tools", "square.sh"), SQUARE, 0o755)
    write(os.path.join(project, "jobs", "job.yaml"), JOB.replace("URL", url))
    write(os.path.join(project, "jobs", "points.json"), json.dumps([{"x": x} for x in range(TASKS)]))
    return project


class NodesBase:
    def committed_ranks(self, prefix, element=0):
        """The ranks with a committed segment of the element in the bucket."""
        return {int(m.group(2)) for key in self.store.keys(f"{prefix}.shards/a{element}/")
                if (m := SEGMENT.search(key))}

    def check_master(self, prefix, kept_before=None):
        """The master in the bucket: complete, every task ok once, y = x * x; returns /tasks/host, and
        with kept_before (a time) the hosts of the tasks that ended before it (the killed attempt's, kept)."""
        h5py = h5py_module()
        path = os.path.join(self.work, "master.h5")
        self.store.get(prefix, path)
        with h5py.File(path, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS, "every task ok exactly once")
            self.assertEqual(f["results/y"][:].tolist(), [float(x * x) for x in range(TASKS)])
            if kept_before is not None:
                ends = f["tasks/end"][:].tolist()
                kept = [task for task, end in enumerate(ends) if end < kept_before]
                self.assertTrue(kept, f"no task of the killed attempt was kept (ends {ends}, kill at {kept_before})")
                hosts = task_labels(f, "host")
                return hosts, {hosts[task] for task in kept}
            return task_labels(f, "host")


class AwsMultiNodeTest(NodesBase, unittest.TestCase):
    def setUp(self):
        from two_hosts import SetupError, TwoHosts
        self.work = scratch_dir(self)
        try:
            self.hosts = TwoHosts(slots=2, edit_hosts_file=False).__enter__()
        except SetupError as e:
            self.skipTest(str(e))  # reported as a skip, never as a pass: main() exits 77 when all skipped
        self.addCleanup(self.hosts.close)
        main = self.hosts.hosts[0]
        self.store = cloud_servers.S3(self.work, wrap=["ip", "netns", "exec", main], host=self.hosts.addresses[0])
        self.addCleanup(self.store.stop)
        self.prefix = "runs/squares.h5"
        self.url = self.store.url(self.prefix)
        self.project = make_project(self.work, self.url)
        # The laptop submits from the main node's namespace: the only place the bucket is reachable from.
        env = clean_env({**self.store.env(), "HOME": os.path.dirname(self.project)})
        env.pop("AWS_CA_BUNDLE", None)
        proc = subprocess.run(["ip", "netns", "exec", main, SHARDRUN, "submit", "jobs/job.yaml", "--to", "aws-batch",
                               "--nodes", "2", "--ranks-per-node", "2", "--workdir", "."],
                              cwd=self.project, env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        local = os.path.join(self.project, "squares.h5.submit", "aws-batch")
        with open(os.path.join(local, "multinode-job.json")) as f:
            job = json.load(f)
        self.assertEqual(job["nodeProperties"]["numNodes"], 2)
        self.container = job["nodeProperties"]["nodeRangeProperties"][0]["container"]
        with open(os.path.join(local, "entrypoint")) as f:
            self.nodes = ContainerNodes(self.hosts, scratch_dir(self), f.read())
        self.addCleanup(self.nodes.stop)

    def start_node(self, node, attempt, extra=None):
        """Node `node` of attempt `attempt` as AWS Batch starts it: the job definition's variables and AWS's."""
        variables = {e["name"]: e["value"] for e in self.container["environment"]}
        aws = {"AWS_BATCH_JOB_ID": "c0ffee#0" if node == 0 else f"c0ffee#{node}",
               "AWS_BATCH_JOB_NODE_INDEX": str(node), "AWS_BATCH_JOB_MAIN_NODE_INDEX": "0",
               "AWS_BATCH_JOB_NUM_NODES": "2", "AWS_BATCH_JOB_ATTEMPT": str(attempt),
               "AWS_BATCH_CE_NAME": "shardrun-ce", "AWS_BATCH_JQ_NAME": "shardrun"}
        return self.nodes.start(node, self.container["command"],
                                {**variables, **aws, **self.store.env(), **SHORT_WAITS, **(extra or {})}, MPIEXEC)

    def finish(self, node, expected=None):
        code, out, err = self.nodes.finish(node, 300)
        if expected is not None:
            self.assertEqual(code, expected, f"node {node}:\n{out}{err}")
        return code, out, err

    def test_two_nodes_of_two_ranks_merge_every_task_once(self):
        for node in (1, 0):  # AWS starts the nodes in any order: here the other node waits for the main one
            self.start_node(node, 1)
        self.finish(0, 0)
        self.finish(1, 0)
        hosts = self.check_master(self.prefix)
        self.assertEqual(set(hosts), set(self.hosts.hosts), "the tasks ran on both nodes")

    def test_a_node_killed_and_the_job_retried_resumes(self):
        for node in (0, 1):
            self.start_node(node, 1, {"SLOW": "7"})  # rank 2 (the second node) runs task 7
        deadline = time.time() + 120
        while not self.committed_ranks(self.prefix) & {2, 3}:  # ranks 2 and 3 are the second node's
            self.assertIsNone(self.nodes.procs[0].poll(), "the main node ended before the second node committed")
            self.assertLess(time.time(), deadline, f"no commit of the second node after 120 s: "
                                                   f"{self.store.keys(self.prefix + '.shards/')}")
            time.sleep(0.2)
        killed_at = time.time()
        self.nodes.kill(1)
        code, out, err = self.finish(0)
        self.assertNotEqual(code, 0, "the main node cannot succeed without the second one:\n" + out + err)
        self.finish(1)
        # AWS retries the job (a lost host: "Host EC2*"): attempt 2 on fresh nodes, resumed from the bucket.
        self.nodes.stop()
        self.nodes = ContainerNodes(self.hosts, scratch_dir(self), self.nodes_entrypoint())
        self.addCleanup(self.nodes.stop)
        for node in (0, 1):
            self.start_node(node, 2)
        self.finish(0, 0)
        self.finish(1, 0)
        hosts, kept_hosts = self.check_master(self.prefix, kept_before=killed_at)
        self.assertEqual(set(hosts), set(self.hosts.hosts), "the tasks ran on both nodes")
        self.assertIn(self.hosts.hosts[1], kept_hosts, "what the killed node had uploaded is kept")

    def nodes_entrypoint(self):
        with open(os.path.join(self.project, "squares.h5.submit", "aws-batch", "entrypoint")) as f:
            return f.read()


class GcpTwoTasksTest(NodesBase, unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.GCS(self.work)
        self.addCleanup(self.store.stop)
        self.prefix = "runs/squares.h5"
        project = make_project(self.work, self.store.url(self.prefix))
        env = {**self.store.env(), "HOME": os.path.dirname(project)}
        proc = subprocess.run([SHARDRUN, "submit", "jobs/job.yaml", "--to", "gcp-batch", "--array", "2",
                               "--ranks-per-node", "2", "--workdir", "."], cwd=project, env=clean_env(env),
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        local = os.path.join(project, "squares.h5.submit", "gcp-batch")
        with open(os.path.join(local, "job.json")) as f:
            self.spec = json.load(f)["taskGroups"][0]["taskSpec"]
        with open(os.path.join(local, "entrypoint")) as f:
            self.runner = HostRunner(self, f.read())
        container = self.spec["runnables"][0]["container"]
        self.command = [container["entrypoint"], *container["commands"]]

    def start(self, index, retry, extra=None):
        batch = {"BATCH_TASK_INDEX": str(index), "BATCH_TASK_COUNT": "2", "BATCH_TASK_RETRY_ATTEMPT": str(retry),
                 "BATCH_JOB_ID": "squares"}
        variables = {**self.spec["environment"]["variables"], **batch, **self.store.env(), **SHORT_WAITS,
                     **(extra or {})}
        handle = self.runner.start(f"t{index}-{retry}", self.command, variables)
        self.addCleanup(self.runner.stop, handle)
        return handle

    def finish(self, handle, expected):
        code, out, err = self.runner.finish(handle, 300)
        self.assertEqual(code, expected, out + err)
        return out, err

    def test_a_task_killed_and_retried_resumes_and_the_last_merges(self):
        # Task 1 (tasks 6..11) with one slow task; its VM is lost once a commit of it is in the bucket.
        handle = self.start(1, 0, {"SLOW": "9"})
        deadline = time.time() + 120
        while not self.committed_ranks(self.prefix, 1):
            self.assertIsNone(handle[0].poll(), "task 1 ended before its first commit reached the bucket")
            self.assertLess(time.time(), deadline, "no commit of task 1 in the bucket after 120 s")
            time.sleep(0.2)
        killed_at = time.time()
        self.runner.stop(handle)  # SIGKILL to the whole machine: no marker, no drain
        _, err = self.finish(self.start(0, 0), 0)
        self.assertIn("1 of 2 are; the last to finish merges", err)
        _, err = self.finish(self.start(1, 1), 0)  # the retry on a fresh VM: resumed from the bucket, last, merges
        self.assertIn("merging the 2 array elements", err)
        self.check_master(self.prefix, kept_before=killed_at)
        self.assertEqual(self.store.keys(self.prefix + ".submit/gcp-batch/final/"), [], "the markers go once merged")

    def test_two_tasks_final_together_exactly_one_merges(self):
        """Both tasks end at once, their markers written concurrently: one merges, the other leaves it."""
        handles = [self.start(index, 0) for index in (0, 1)]
        errs = [self.finish(handle, 0)[1] for handle in handles]
        merged = [index for index, err in enumerate(errs) if "merging the 2 array elements" in err]
        self.assertEqual(len(merged), 1, "exactly one task merges:\n" + "\n".join(errs))
        self.check_master(self.prefix)
        self.assertEqual(self.store.keys(self.prefix + ".submit/gcp-batch/final/"), [], "the markers go once merged")

    def test_a_marker_left_pending_is_waited_for_then_its_retry_merges(self):
        """Task 1 was killed between its two marker writes ("pending"): task 0, final, waits at most
        SHARDRUN_MERGE_SETTLE for it, then leaves the merge to task 1's retry, which is last and merges."""
        self.store.put_text(self.prefix + ".submit/gcp-batch/final/a1", "pending 1\n")
        _, err = self.finish(self.start(0, 0), 0)
        self.assertIn("the markers of 1 stayed pending for 1 s; their retry merges", err)
        _, err = self.finish(self.start(1, 1), 0)
        self.assertIn("merging the 2 array elements", err)
        self.check_master(self.prefix)


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcpTwoTasksTest
    elif backend == "gcs":
        del AwsMultiNodeTest
    result = unittest.main(verbosity=2, exit=False).result
    if result.wasSuccessful() and result.skipped and len(result.skipped) == result.testsRun:
        print("SKIPPED: " + "; ".join(sorted({reason for _, reason in result.skipped})))
        sys.exit(cloud_servers.SKIP)
    sys.exit(0 if result.wasSuccessful() else 1)
