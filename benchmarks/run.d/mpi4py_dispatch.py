"""N /bin/true tasks through mpi4py.futures: `mpirun -np 3 python3 -m mpi4py.futures
mpi4py_dispatch.py N` gives one master and 2 workers, each task one subprocess."""
import subprocess
import sys

from mpi4py.futures import MPIPoolExecutor


def task(i):
    return subprocess.run(["/bin/true", str(i)]).returncode


if __name__ == "__main__":
    with MPIPoolExecutor() as pool:
        failed = sum(1 for rc in pool.map(task, range(int(sys.argv[1]))) if rc)
    sys.exit(1 if failed else 0)
