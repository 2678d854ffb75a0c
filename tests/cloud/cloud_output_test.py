"""Issue 22, point 1: results in object storage, with no shared file system. For moto's S3 server and
the GCS emulator on loopback: a 2-rank run writing to the bucket is killed -9 after some commits
(every process of the "machine", its uploads in flight included), rerun with --resume in a FRESH
scratch folder (it sees only the bucket), and every task is ok exactly once in the master read back
from the bucket with h5py; the tasks whose segments were in the bucket at the kill were not run
again. Then `status` and `table` read the URL. For S3 also: a SIGTERM drain ends with exit 3 and
every committed segment in the bucket (and a rerun elsewhere completes the job), `merge` of a
two-element array job publishes the master, and a data.input in the bucket is downloaded once per node.
CLOUD_BACKEND=s3|gcs picks one (ctest runs each as its own entry); unset runs both."""
import os
import re
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import MPIEXEC, SHARDRUN, clean_env, run, scratch_dir  # noqa: E402
from jobs import h5py_module, write_job  # noqa: E402

TASKS = 48
OPEN = 16  # tasks 0..15 are quick; the others take a second each until the gate file exists (a rerun's)
JOB = """\
name: cloud
task: exec
sweep: {{a: {{range: [0, {tasks}, 1]}}}}
retries: 0
exec:
  argv: [sh, -c, 'if [ $SHARDRUN_PARAM_A -ge {open} ]; then [ -e {gate} ] || sleep 1; fi;
         echo "{{{{\\"v\\": $SHARDRUN_PARAM_A}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
"""
SEGMENT = re.compile(r"\.shards/a\d+/r\d+/\d+\.h5$")


def is_rank(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().split(b"\0")
        with open(f"/proc/{pid}/comm", "rb") as f:
            comm = f.read().strip()
    except OSError:
        return False
    return cmdline[:2] == [SHARDRUN.encode(), b"run"] and comm != b"shardrun-guard"


def kill_machine(proc, scratch):
    """A spot stop without warning: SIGKILL to mpirun's group and to everything of this scratch folder."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    cloud_servers.kill_processes_with_env(f"SHARDRUN_SCRATCH={scratch}")


class CloudOutputBase:
    backend = None

    def setUp(self):
        self.work = scratch_dir(self)
        self.store = (cloud_servers.S3 if self.backend == "s3" else cloud_servers.GCS)(self.work)
        self.addCleanup(self.store.stop)
        self.gate = os.path.join(self.work, "gate")
        self.job = write_job(self.work, JOB.format(tasks=TASKS, open=OPEN, gate=self.gate))
        self.url = self.store.url("runs/p1/cloud.h5")
        self.prefix = "runs/p1/cloud.h5"

    def env(self, scratch):
        # The upload period is short so that a kill after a few seconds finds segments in the bucket.
        return {**self.store.env(), "SHARDRUN_SCRATCH": scratch, "SHARDRUN_UPLOAD_INTERVAL": "0.3"}

    def start(self, scratch, *extra):
        cmd = [MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", self.job, "--set", f"output.path={self.url}",
               "-q", *extra]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=clean_env(self.env(scratch)), start_new_session=True)
        self.addCleanup(kill_machine, proc, scratch)
        return proc

    def segments(self):
        return [key for key in self.store.keys(self.prefix) if SEGMENT.search(key)]

    def wait_for_segments(self, proc, scratch, count):
        """Waits until this run has committed `count` segments on its disk and the bucket holds one.
        The local mirror is polled (a listing of the bucket through awscli takes seconds here)."""
        deadline = time.time() + 300
        while time.time() < deadline:
            local = [name for _, _, files in os.walk(scratch) for name in files if re.fullmatch(r"\d+\.h5", name)]
            if len(local) >= count and self.segments():
                return
            if proc.poll() is not None:  # (the message's communicate() must not run while the job does)
                self.fail(f"the run ended before {count} segments were committed: {proc.communicate()}")
            time.sleep(0.1)
        raise AssertionError(f"fewer than {count} segments committed and uploaded after 300 s")

    def read_rows(self, key):
        """(task id, start) of every row of a segment object."""
        h5py = h5py_module()
        path = os.path.join(self.work, "segment.h5")
        self.store.get(key, path)
        with h5py.File(path, "r") as f:
            return [(int(row["task_id"]), float(row["start"])) for row in f["tasks"][:]]

    def master(self):
        h5py = h5py_module()
        path = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, path)
        with h5py.File(path, "r") as f:
            return {"status": f["tasks/status"][:].tolist(), "start": f["tasks/start"][:].tolist(),
                    "v": f["results/v"][:].tolist(), "complete": bool(f.attrs["complete"])}

    def test_a_reader_of_a_missing_bucket_names_it(self):
        # A path in a bucket that exists is "no such output"; a bucket that does not exist is named so.
        env = self.env(scratch_dir(self))
        missing = self.store.url("runs/none.h5").replace(self.store.bucket, "no-such-bucket-34", 1)
        for url, needle in ((self.store.url("runs/none.h5"), "no such output"),
                            (missing, "the bucket no-such-bucket-34 does not exist")):
            proc = run(["status", url], env=env)
            self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            self.assertIn(needle, lines[0])
        self.assertNotIn("does not exist", run(["status", self.store.url("runs/none.h5")], env=env).stderr)

    def test_kill9_then_resume_from_the_bucket_alone(self):
        first = scratch_dir(self)
        proc = self.start(first)
        self.wait_for_segments(proc, first, 3)  # the kill may come with an upload in flight
        kill_machine(proc, first)
        self.assertNotIn(proc.returncode, (0, 1, 2, 3), "the run ended by itself before the kill: nothing was tested")
        # What the bucket held at the kill: nothing of it may be lost or run again.
        kept = {}
        for key in self.segments():
            kept.update(self.read_rows(key))
        self.assertGreater(len(kept), 0)
        self.assertLess(len(kept), TASKS, "every task was in the bucket before the kill: nothing was tested")

        second = scratch_dir(self)  # a fresh machine: no file of the first run
        open(self.gate, "w").close()
        proc = self.start(second, "--resume")
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, 0, out + err)
        master = self.master()
        self.assertTrue(master["complete"])
        self.assertEqual(master["status"], [1] * TASKS, "every task ok")
        self.assertEqual(master["v"], [float(i) for i in range(TASKS)], "each task's own result, once")
        for task, start in kept.items():
            self.assertEqual(master["start"][task], start, f"task {task} was committed in the bucket and ran again")
        # Stored once: the master holds the rows, the segments are gone from the bucket.
        self.assertEqual(self.segments(), [])
        self.assertIn(self.prefix + ".shards/a0/element.json", self.store.keys(self.prefix))

        third = scratch_dir(self)
        env = self.env(third)
        status = run(["status", self.url], env=env)
        self.assertEqual(status.returncode, 0, status.stdout + status.stderr)
        table = run(["table", self.url, "--csv"], env=env)
        self.assertEqual(table.returncode, 0, table.stderr)
        lines = table.stdout.strip().splitlines()
        self.assertEqual(len(lines), TASKS + 1, table.stdout)
        self.assertIn("v", lines[0].split(","))
        self.assertEqual(os.listdir(third), [], "the readers' copies were not removed")


class S3OutputTest(CloudOutputBase, unittest.TestCase):
    backend = "s3"

    def test_drain_uploads_every_commit_before_exit_3(self):
        scratch = scratch_dir(self)
        proc = self.start(scratch)
        self.wait_for_segments(proc, scratch, 2)
        # To each rank, as Slurm's scancel or a container's entrypoint does (mpirun would follow its own
        # SIGTERM with SIGKILL a second later).
        ranks = [pid for pid in cloud_servers.processes_with_env(f"SHARDRUN_SCRATCH={scratch}") if is_rank(pid)]
        self.assertEqual(len(ranks), 2)
        for pid in ranks:
            os.kill(pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 3, out + err)
        local = []
        for root, _, files in os.walk(scratch):
            local += [f"{os.path.basename(root)}/{name}" for name in files if re.fullmatch(r"\d+\.h5", name)]
        remote = ["/".join(key.split("/")[-2:]) for key in self.segments()]
        self.assertTrue(local)
        self.assertEqual(sorted(local), sorted(remote), "a committed segment is missing from the bucket")
        # The service's retry: another machine resumes from the bucket.
        open(self.gate, "w").close()
        proc = self.start(scratch_dir(self), "--resume")
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, 0, out + err)
        master = self.master()
        self.assertEqual(master["status"], [1] * TASKS)
        self.assertEqual(master["v"], [float(i) for i in range(TASKS)])

    def test_array_elements_then_merge_publishes_the_master(self):
        open(self.gate, "w").close()
        for index in (0, 1):
            proc = run(["run", self.job, "--set", f"output.path={self.url}", "--array-index", str(index),
                        "--array-count", "2", "-q"], np=2, env=self.env(scratch_dir(self)))
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertNotIn(self.prefix, self.store.keys(self.prefix), "an element wrote the master")
        merged = run(["merge", self.url], env=self.env(scratch_dir(self)))
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.assertIn(self.url, merged.stdout)
        master = self.master()
        self.assertTrue(master["complete"])
        self.assertEqual(master["status"], [1] * TASKS)
        self.assertEqual(master["v"], [float(i) for i in range(TASKS)])
        self.assertEqual(self.segments(), [], "merge consolidated the elements: their segments go")


    def test_data_input_is_staged_once_per_node(self):
        h5py = h5py_module()
        local = os.path.join(self.work, "data.h5")
        with h5py.File(local, "w") as f:
            f["x"] = [[float(i)] * 3 for i in range(20)]
        self.store.aws("s3", "cp", local, f"s3://{self.store.bucket}/in/data.h5")
        scratch = scratch_dir(self)
        # A task fails (exit 7) unless {input} is the copy in this node's scratch folder.
        job = write_job(self.work, f"""\
            name: staged
            task: exec
            data: {{input: "s3://{self.store.bucket}/in/data.h5:/x", chunk: 5}}
            exec:
              argv: [sh, -c, 'case "{{input}}" in {scratch}/shardrun-input/*/data.h5) ;; *) exit 7;; esac;
                     test -f "{{input}}" && [ "{{input_dataset}}" = /x ] && echo "{{{{\\"n\\": $(({{end}} - {{start}}))}}}}" > $SHARDRUN_RESULT']
              results: {{n: int64}}
            """, name="staged.yaml")
        proc = run(["run", job, "--set", f"output.path={self.url}", "-q"], np=2, env=self.env(scratch))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        path = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, path)
        with h5py.File(path, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 4)
            self.assertEqual(f["results/n"][:].tolist(), [5] * 4)
        with open(os.path.join(self.work, "moto.log")) as f:
            gets = [line for line in f if f"GET /{self.store.bucket}/in/data.h5 " in line]
        self.assertEqual(len(gets), 1, "two ranks of one node: one download")


class GcsOutputTest(CloudOutputBase, unittest.TestCase):
    backend = "gcs"


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcsOutputTest
    elif backend == "gcs":
        del S3OutputTest
    unittest.main()
