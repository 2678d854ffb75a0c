"""Issue 37, point 3 in the cloud: with the output in a bucket (moto's S3 on loopback), a task's
checkpoint folder goes up to <output>.tasks/<id>/checkpoint/ at the drain (SIGUSR1 to the ranks,
drain_timeout 1s) and every exec.checkpoint_sync; the retry on a FRESH machine (an empty scratch
folder: only the bucket is left) with --resume gets it back and goes on from the last step; once
the tasks succeeded, the bucket keeps no checkpoint."""
import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, scratch_dir  # noqa: E402
from jobs import h5py_module, write_job  # noqa: E402
from cloud_output_test import is_rank  # noqa: E402  (a shardrun rank's pid, not its guard's)

PACKAGE = os.path.join(SOURCE_DIR, "scripts", "python")
COUNTER = os.path.join(SOURCE_DIR, "tests", "cli", "checkpoint", "step_counter.py")
STEPS = 60


class S3CheckpointTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.S3(self.work)
        self.addCleanup(self.store.stop)
        self.prefix = "runs/ckpt/counter.h5"
        self.job = write_job(self.work, f"""\
            name: counter
            task: exec
            sweep: {{a: [0, 1]}}
            drain_timeout: 1s
            exec:
              argv: [/usr/bin/python3, {COUNTER}]
              env: {{PYTHONPATH: {PACKAGE}, COUNTER_LOG: {self.work}/starts.log, COUNTER_STEPS: "{STEPS}"}}
              results: {{steps: int64, resumed_from: int64}}
              checkpoint_sync: 1s
            """)

    def start(self, scratch, *extra):
        env = {**self.store.env(), "SHARDRUN_SCRATCH": scratch, "SHARDRUN_UPLOAD_INTERVAL": "0.3"}
        cmd = [MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", self.job, "--set",
               f"output.path={self.store.url(self.prefix)}", "-q", *extra]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env(env),
                                start_new_session=True)
        self.addCleanup(cloud_servers.kill_processes_with_env, f"SHARDRUN_SCRATCH={scratch}")
        return proc

    def checkpoints(self):
        return sorted(k for k in self.store.keys(self.prefix + ".tasks") if "/checkpoint/" in k)

    def local_steps(self, scratch):
        steps = {}
        for root, _, files in os.walk(scratch):
            if os.path.basename(root) == "checkpoint" and "step" in files:
                with open(os.path.join(root, "step")) as f:
                    steps[int(os.path.basename(os.path.dirname(root)))] = int(f.read() or 0)
        return steps

    def test_drain_syncs_the_checkpoints_and_a_fresh_machine_goes_on_from_them(self):
        first = scratch_dir(self)
        proc = self.start(first)
        deadline = time.time() + 120
        while time.time() < deadline and not (len(self.local_steps(first)) == 2 and min(self.local_steps(first).values()) >= 5):
            self.assertIsNone(proc.poll(), "the run ended before both tasks checkpointed")
            time.sleep(0.1)
        for pid in [p for p in cloud_servers.processes_with_env(f"SHARDRUN_SCRATCH={first}") if is_rank(p)]:
            os.kill(pid, signal.SIGUSR1)
        out, err = proc.communicate(timeout=300)
        self.assertIn(proc.returncode, (3, 4), out + err)  # no task can finish its 6 s in a 1 s drain
        at_drain = self.local_steps(first)
        self.assertEqual(sorted(at_drain), [0, 1])
        keys = self.checkpoints()
        for t in (0, 1):  # (a step.tmp the kill left beside it may have gone up too)
            self.assertIn(f"{self.prefix}.tasks/{t}/checkpoint/step", keys)

        second = scratch_dir(self)  # the retry's machine: nothing of the first run but the bucket
        proc = self.start(second, "--resume")
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, 0, out + err)
        master = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, master)
        with h5py_module().File(master, "r") as f:
            self.assertEqual(f["results/steps"][:].tolist(), [STEPS, STEPS])
            resumed_from = f["results/resumed_from"][:].tolist()
        for t in (0, 1):
            self.assertEqual(resumed_from[t], at_drain[t], "the retry did not start from the drained checkpoint")
        self.assertEqual(self.checkpoints(), [], "succeeded tasks' checkpoints were left in the bucket")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main()
