"""The fixture of gpu_sharing_test.py: a stand-in CUDA backend (4 GPUs) and a stand-in MPS control
program on PATH, a task program that records what it was told and when it ran, the job, and
the checks on the daemon's log, the records and a refused job."""
import glob
import json
import os
import signal
import subprocess
import time
import unittest

from harness import (MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, kill_task_processes, live_processes, scratch_dir,
                     wait_until_none)
from jobs import write_job

FAKE_BACKEND = os.environ.get("SHARDRUN_TEST_FAKE_CUDA_BACKEND")
FAKE_MPS_DIR = os.path.join(SOURCE_DIR, "tests", "support", "fake_mps")

# Each task records when it ran and what it was told, in records/<task id>.json.
PROGRAM = r'''
import json, os, sys, time
start = time.time()
time.sleep(float(os.environ.get("SLEEP", "0.4")))
names = ["CUDA_VISIBLE_DEVICES", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY",
         "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"]
record = {name: os.environ.get(name) for name in names}
record.update(rank=int(os.environ["SHARDRUN_RANK"]), start=start, end=time.time())
with open(os.path.join(sys.argv[1], os.environ["SHARDRUN_TASK_ID"] + ".json"), "w") as f:
    json.dump(record, f)
if os.environ["SHARDRUN_TASK_ID"] == os.environ.get("FAIL_ID"):
    sys.exit(1)
'''

# A worker (exec.mode: worker) records the environment it started with, once per task.
WORKER = r'''
import json, os, sys
answers = os.fdopen(int(os.environ.get("SHARDRUN_ANSWER_FD", "3")), "w", buffering=1)
answers.write(json.dumps({"ready": True}) + "\n")
names = ["CUDA_VISIBLE_DEVICES", "CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
         "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"]
for line in sys.stdin:
    task = json.loads(line)
    record = {name: os.environ.get(name) for name in names}
    record["rank"] = int(os.environ["SHARDRUN_RANK"])
    with open(os.path.join(sys.argv[1], str(task["task_id"]) + ".json"), "w") as f:
        json.dump(record, f)
    answers.write(json.dumps({"task_id": task["task_id"], "status": "ok", "results": {}}) + "\n")
'''

JOB = """
name: share
task: exec
device: cuda
schedule: static
{sharing}
sweep: {{x: [{xs}]}}
output: {{path: {out}}}
exec:
  argv: [/usr/bin/python3, {program}, {records}]
  env: {{SLEEP: "{sleep}", FAIL_ID: "{fail}"}}
"""

MPS = "tasks_per_gpu: 2\ngpu_sharing: mps\ngpu_memory: 1G"


def max_overlap(intervals):
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda t: (t[0], t[1]))
    best = now = 0
    for _, step in events:
        now += step
        best = max(best, now)
    return best


class GpuSharingCase(unittest.TestCase):
    """Per test: a scratch folder with records/, tmp/ (TMPDIR: the MPS folders go there) and the task program."""

    def setUp(self):
        self.work = scratch_dir()
        self.addCleanup(kill_task_processes, self.work)
        self.addCleanup(self.kill_daemons)
        self.records = os.path.join(self.work, "records")
        os.mkdir(self.records)
        self.tmp = os.path.join(self.work, "tmp")  # TMPDIR: the MPS folders go here
        os.mkdir(self.tmp)
        self.out = os.path.join(self.work, "out.h5")
        self.mps_log = os.path.join(self.work, "mps.log")
        self.program = os.path.join(self.work, "task.py")
        with open(self.program, "w") as f:
            f.write(PROGRAM)

    def env(self, mps_on_path=True):
        path = os.environ.get("PATH", "")
        return {"SHARDRUN_CUDA_BACKEND": FAKE_BACKEND, "SHARDRUN_FAKE_GPUS": "4", "TMPDIR": self.tmp,
                "SHARDRUN_FAKE_MPS_LOG": self.mps_log, "SHARDRUN_FAKE_CUDA_ENV_LOG": os.path.join(self.work, "cuda.log"),
                "PATH": f"{FAKE_MPS_DIR}:{path}" if mps_on_path else path}

    def job(self, sharing=MPS, tasks=8, sleep=0.4, fail="none"):
        text = JOB.format(sharing=sharing, xs=", ".join(str(i) for i in range(tasks)), out=self.out,
                          program=self.program, records=self.records, sleep=sleep, fail=fail)
        return write_job(self.work, text)

    def log(self):
        if not os.path.exists(self.mps_log):
            return []
        with open(self.mps_log) as f:
            return [line.split() for line in f if line.strip()]

    def daemon_pids(self):
        return [int(words[2][len("pid="):]) for words in self.log() if words[0] == "daemon-start"]

    def live_daemons(self):
        pids = set(self.daemon_pids())
        return [pid for pid in live_processes("stat", lambda _: True) if pid in pids]

    def kill_daemons(self):
        for pid in self.live_daemons():
            os.kill(pid, signal.SIGKILL)

    def read_records(self):
        records = []
        for path in glob.glob(os.path.join(self.records, "*.json")):
            with open(path) as f:
                records.append(json.load(f))
        return records

    def assert_one_daemon_started_and_quit(self):
        """One daemon for the node, quit once, gone, and its folders removed."""
        self.assertEqual(wait_until_none(self.live_daemons, 15), [], "an MPS daemon was left running")
        # The watchdog removes the folders right after the daemon has gone.
        self.assertEqual(wait_until_none(lambda: glob.glob(os.path.join(self.tmp, "shardrun-mps-*")), 15), [],
                         "the MPS folders were left")
        commands = [words[0] for words in self.log()]
        self.assertEqual(commands.count("-d"), 1, commands)
        self.assertEqual(commands.count("daemon-start"), 1, commands)
        self.assertEqual(commands.count("quit"), 1, commands)
        self.assertEqual(commands.count("daemon-quit"), 1, commands)

    def start(self, job, np):
        proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(np), SHARDRUN, "run", job, "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(self.env()))
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        return proc

    def wait_for_records(self, count):
        deadline = time.time() + 60
        while len(glob.glob(os.path.join(self.records, "*.json"))) < count and time.time() < deadline:
            time.sleep(0.05)

    def job_path(self):
        return os.path.join(self.work, "job.yaml")

    # --- bad input: exit 2, one line, nothing written, no daemon

    def assert_refused(self, proc, words):
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn(words, proc.stderr)
        # One line of ours (mpirun adds its own banner about the exit status).
        self.assertEqual(len([l for l in proc.stderr.splitlines() if l.startswith("shardrun:")]), 1, proc.stderr)
        self.assertFalse(os.path.exists(self.out), "bad input wrote the output")
        self.assertEqual(self.read_records(), [], "bad input ran tasks")
        self.assertEqual(self.log(), [], "bad input started a daemon")
