"""tasks_per_gpu and gpu_sharing (issue 26, point 1) end to end, on a stand-in CUDA backend at the
library's dlopen seam (tests/support/fake_cuda_backend, 4 GPUs) and a stand-in MPS control program
on PATH (tests/support/fake_mps/nvidia-cuda-mps-control, which logs every command). At 1, 2 and 4
ranks: each task sees the MPS variables with the right values, K tasks run at once on each rank
(from the tasks' own start and end times), one daemon per node is started and quit once, and no
daemon is left after a normal end, a failing task, a drain (SIGUSR1), SIGTERM or kill -9 of a rank.
Bad input ends with exit 2 and writes nothing. A CPU build loads no backend: skipped."""
import glob
import os
import signal
import time
import unittest

from gpu_sharing_case import FAKE_BACKEND, JOB, WORKER, GpuSharingCase, max_overlap
from harness import rank_pid, run
from jobs import write_job


@unittest.skipIf(FAKE_BACKEND is None, "a CPU build (SHARDRUN_CUDA=OFF) loads no CUDA backend, so no stand-in "
                                       "GPUs: GPU sharing is NOT tested in this build")
class GpuSharingTest(GpuSharingCase):
    # --- the variables, the concurrency, one daemon: 1, 2 and 4 ranks

    def check_mps_run(self, np):
        proc = run(["run", self.job(tasks=6 * np), "-q"], np=np, env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assert_one_daemon_started_and_quit()
        pipe = [words[1] for words in self.log() if words[0] == "-d"][0][len("pipe="):]
        records = self.read_records()
        self.assertEqual(len(records), 6 * np)
        for record in records:
            self.assertEqual(record["CUDA_MPS_PIPE_DIRECTORY"], pipe, record)
            self.assertEqual(record["CUDA_MPS_LOG_DIRECTORY"], os.path.join(os.path.dirname(pipe), "log"), record)
            self.assertEqual(record["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], "50", record)
            self.assertEqual(record["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"], "0=1G", record)
            self.assertEqual(record["CUDA_VISIBLE_DEVICES"], str(record["rank"] % 4), record)
        for rank in range(np):
            spans = [(r["start"], r["end"]) for r in records if r["rank"] == rank]
            self.assertEqual(max_overlap(spans), 2, f"rank {rank}: tasks_per_gpu 2 means 2 tasks at once")
        # The rank's own CUDA (built-in kernels) saw the MPS folder and its 2 slots' share when it loaded.
        with open(os.path.join(self.work, "cuda.log")) as f:
            loads = f.read().splitlines()
        self.assertEqual(len(loads), np, loads)
        for line in loads:
            self.assertIn(f"CUDA_MPS_PIPE_DIRECTORY={pipe}", line)
            self.assertIn("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100", line)

    def test_mps_1_rank(self):
        self.check_mps_run(1)

    def test_mps_2_ranks(self):
        self.check_mps_run(2)

    def test_mps_4_ranks(self):
        self.check_mps_run(4)

    def test_time_sharing_runs_k_at_once_without_mps(self):
        proc = run(["run", self.job(sharing="tasks_per_gpu: 3", tasks=9), "-q"], np=1, env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        records = self.read_records()
        self.assertEqual(max_overlap([(r["start"], r["end"]) for r in records]), 3)
        self.assertTrue(all(r["CUDA_MPS_PIPE_DIRECTORY"] is None for r in records), records)
        self.assertEqual(self.log(), [], "gpu_sharing: time starts no daemon")

    def test_worker_gets_the_mps_variables(self):
        # One worker per rank is one MPS client: with tasks_per_gpu 1 it gets one task's limits.
        worker = os.path.join(self.work, "worker.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        text = JOB.format(sharing="tasks_per_gpu: 1\ngpu_sharing: mps\ngpu_memory: 512M", xs="1, 2, 3, 4",
                          out=self.out, program=worker, records=self.records, sleep=0, fail="none")
        job = write_job(self.work, text.replace("exec:\n", "exec:\n  mode: worker\n"))
        proc = run(["run", job, "-q"], np=2, env=self.env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assert_one_daemon_started_and_quit()
        records = self.read_records()
        self.assertEqual(len(records), 4)
        for record in records:
            self.assertEqual(record["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"], "100", record)
            self.assertEqual(record["CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"], "0=512M", record)
            self.assertEqual(record["CUDA_VISIBLE_DEVICES"], str(record["rank"]), record)

    # --- no daemon left, however the job ends

    def test_failing_task(self):
        proc = run(["run", self.job(tasks=4, sleep=0.1, fail="2"), "-q"], np=2, env=self.env())
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assert_one_daemon_started_and_quit()

    def test_a_daemon_that_outlives_quit_is_ended_before_the_run_returns(self):
        # Seen on an H200: the daemon and its server still alive after `quit` had been sent. The
        # watchdog waits for them (10 s), then kills them, before the rank's run returns.
        for np in (1, 2):
            with self.subTest(np=np):
                env = {**self.env(), "SHARDRUN_FAKE_MPS_QUIT": "linger"}
                proc = run(["run", self.job(tasks=2 * np, sleep=0.1), "-q", "--force"], np=np, env=env)
                self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
                self.assertEqual(self.live_daemons(), [], "the run returned with the MPS daemon still running")
                self.assertEqual(glob.glob(os.path.join(self.tmp, "shardrun-mps-*")), [], "the MPS folders were left")
                self.assertIn("daemon-quit-ignored", [words[0] for words in self.log()])

    def test_drain(self):
        proc = self.start(self.job(tasks=40, sleep=1.0), 2)
        self.wait_for_records(1)
        os.kill(rank_pid(self.job_path(), 0, time.time() + 30), signal.SIGUSR1)
        _, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 3, err)
        self.assert_one_daemon_started_and_quit()

    def test_sigterm(self):
        proc = self.start(self.job(tasks=40, sleep=1.0), 2)
        self.wait_for_records(1)
        os.kill(rank_pid(self.job_path(), 1, time.time() + 30), signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 3, err)
        self.assert_one_daemon_started_and_quit()

    def check_kill9(self, np, victim):
        proc = self.start(self.job(tasks=20 * np, sleep=1.0), np)
        self.wait_for_records(1)
        os.kill(rank_pid(self.job_path(), victim, time.time() + 30), signal.SIGKILL)
        proc.communicate(timeout=120)
        self.assertNotEqual(proc.returncode, 0)
        self.assert_one_daemon_started_and_quit()

    def test_kill9_of_the_rank_that_started_the_daemon(self):
        self.check_kill9(2, 0)

    def test_kill9_of_another_rank(self):
        self.check_kill9(4, 3)

    def test_kill9_of_the_only_rank(self):
        self.check_kill9(1, 0)

    def test_mps_control_missing(self):
        proc = run(["run", self.job()], np=2, env=self.env(mps_on_path=False))
        self.assert_refused(proc, "gpu_sharing: mps needs nvidia-cuda-mps-control on PATH")

    def test_bad_fields(self):
        cases = [("tasks_per_gpu: 2\nslots_per_rank: 3", "slots_per_rank: is 3 but tasks_per_gpu is 2"),
                 ("tasks_per_gpu: 2\ngpu_sharing: mps\ngpu_memory: 10Q", "gpu_memory: '10Q' is not a size"),
                 ("tasks_per_gpu: 0", "tasks_per_gpu:"),
                 ("gpu_sharing: mps\ngpu_threads: 0", "gpu_threads:"),
                 ("tasks_per_gpu: 2\ngpus_per_rank: 2", "cannot be combined with gpus_per_rank")]
        for sharing, words in cases:
            with self.subTest(sharing=sharing):
                proc = run(["run", self.job(sharing=sharing)], np=1, env=self.env())
                self.assert_refused(proc, words)

    # --- MIG: each instance is a device, by UUID

    def test_mig_instances_are_bound_by_uuid(self):
        bin_dir = os.path.join(self.work, "bin")
        os.mkdir(bin_dir)
        with open(os.path.join(bin_dir, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\ncat <<'END'\n"
                    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d5ba0d6-0000-0000-0000-000000000000)\n"
                    "  MIG 3g.40gb     Device  0: (UUID: MIG-aaaaaaaa-0000-0000-0000-000000000000)\n"
                    "  MIG 3g.40gb     Device  1: (UUID: MIG-bbbbbbbb-0000-0000-0000-000000000000)\n"
                    "END\n")
        os.chmod(os.path.join(bin_dir, "nvidia-smi"), 0o755)
        env = self.env()
        env["PATH"] = f"{bin_dir}:{env['PATH']}"
        proc = run(["run", self.job(sharing="", tasks=4, sleep=0), "-q"], np=2, env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        seen = {r["rank"]: r["CUDA_VISIBLE_DEVICES"] for r in self.read_records()}
        self.assertEqual(seen, {0: "MIG-aaaaaaaa-0000-0000-0000-000000000000",
                                1: "MIG-bbbbbbbb-0000-0000-0000-000000000000"})
        info = run(["info"], env=env)
        self.assertIn("MIG 3g.40gb device 1 MIG-bbbbbbbb", info.stdout)

    def test_info_without_nvidia_smi_says_so(self):
        env = self.env()
        env["PATH"] = "/usr/bin:/bin"
        self.assertIn("  MIG         unknown (nvidia-smi is not on PATH", run(["info"], env=env).stdout)


if __name__ == "__main__":
    unittest.main()
