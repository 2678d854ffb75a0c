"""Benchmark-only contenders, installed on first use so that scripts/install-deps (and so
scripts/test) stays lean: GNU parallel and mpi4py from Debian, HyperQueue from PyPI into a venv."""
import os
import shutil
import subprocess

from common import Skip

SYSTEM_PYTHON = "/usr/bin/python3"   # Debian's, with h5py, numpy and python3-mpi4py
HQ_VERSION = "0.27.0"                # the version issue 13's figures were taken with
HQ_VENV = os.environ.get("SHARDRUN_BENCH_VENV", "/var/tmp/shardrun-bench-venv")


def _apt_install(package, log):
    if os.geteuid() != 0 and not shutil.which("sudo"):
        raise Skip(f"{package} is not installed and this is not root (apt-get install {package})")
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    log(f"  installing Debian package {package}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = sudo + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", package]
    proc = subprocess.run(install, env=env, capture_output=True, text=True)
    if proc.returncode != 0:   # stale package lists are the usual cause
        subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env, capture_output=True)
        proc = subprocess.run(install, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise Skip(f"apt-get install {package} failed: {proc.stderr.strip().splitlines()[-1:]}")


def gnu_parallel(log):
    if not shutil.which("parallel"):
        _apt_install("parallel", log)
    return shutil.which("parallel")


def mpi4py(log):
    def present():
        return subprocess.run([SYSTEM_PYTHON, "-c", "import mpi4py.futures"], capture_output=True).returncode == 0
    if not present():
        _apt_install("python3-mpi4py", log)
        if not present():
            raise Skip("python3-mpi4py installed but `import mpi4py.futures` fails")
    return SYSTEM_PYTHON


def hyperqueue(log):
    """The venv's python with the hyperqueue package (its Python API starts server and workers)."""
    python = os.path.join(HQ_VENV, "bin", "python")
    check = [python, "-c", "import hyperqueue.cluster"]
    if os.access(python, os.X_OK) and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    log(f"  installing hyperqueue=={HQ_VERSION} from PyPI into {HQ_VENV}")
    steps = [[SYSTEM_PYTHON, "-m", "venv", HQ_VENV],
             [os.path.join(HQ_VENV, "bin", "pip"), "install", "-q", f"hyperqueue=={HQ_VERSION}"]]
    for step in steps:
        try:
            proc = subprocess.run(step, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            raise Skip(f"`{' '.join(step[:3])}` took over 300 s (no route to PyPI?)")
        if proc.returncode != 0:
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            raise Skip(f"cannot install hyperqueue from PyPI: {last[0]}")
    return python
