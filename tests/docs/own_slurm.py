"""A test case with a real one-node Slurm of its own: scripts/slurm-local starts it for the class alone
(its own directory and ports) and stops it in a class cleanup, which cancels its jobs. Never skipped: a
cluster that cannot start fails the test with its logs. Shared by the docs pages that submit to Slurm."""
import os
import re
import subprocess
import tempfile
import unittest
import uuid

from harness import SOURCE_DIR, clean_env

SLURM_LOCAL = os.path.join(SOURCE_DIR, "scripts", "slurm-local")


class OwnSlurmTestCase(unittest.TestCase):
    slurm_prefix = "shardrun-slurm-docs"  # the cluster's directory under the temporary folder

    @classmethod
    def setUpClass(cls):
        cls.slurm_dir = os.path.join(tempfile.gettempdir(), f"{cls.slurm_prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}")
        cls.addClassCleanup(cls.stop_slurm)
        proc = subprocess.run([SLURM_LOCAL, "start"], capture_output=True, text=True, timeout=180,
                              env=clean_env({"SHARDRUN_SLURM_DIR": cls.slurm_dir}))
        if proc.returncode != 0:
            raise AssertionError(f"scripts/slurm-local start failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")

    @classmethod
    def stop_slurm(cls):
        proc = subprocess.run([SLURM_LOCAL, "stop"], capture_output=True, text=True, timeout=120,
                              env=clean_env({"SHARDRUN_SLURM_DIR": cls.slurm_dir}))
        if proc.returncode != 0:
            print(f"scripts/slurm-local stop failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")

    def reader_env(self):
        """What `eval "$(scripts/slurm-local env)"` gives the reader's shell."""
        return {"SLURM_CONF": os.path.join(self.slurm_dir, "slurm.conf")}

    def jobs(self, env):
        """Every job the cluster knows, as scontrol's key=value fields."""
        out = subprocess.run(["scontrol", "show", "job", "-o"], capture_output=True, text=True, env=env).stdout
        return [dict(re.findall(r"(\w+)=(\S*)", line)) for line in out.splitlines() if "JobId=" in line]
