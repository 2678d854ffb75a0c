"""The CMake package: `cmake --install` the build tree into a fresh prefix, build
examples/custom-task against it with find_package(shardrun), run its `task: collatz` under
mpiexec -np 2 and check the results file with h5py."""
import os
import shutil
import subprocess
import unittest

from harness import MPIEXEC, SOURCE_DIR, clean_env, run, scratch_dir
from jobs import h5py_module

h5py = h5py_module()
BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]
CMAKE = shutil.which("cmake") or "cmake"


def collatz(n):
    steps, peak = 0, n
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps, peak = steps + 1, max(peak, n)
    return steps, peak


def check_call(args, **kwargs):
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


class CustomTaskTest(unittest.TestCase):
    def test_example_builds_against_the_installed_package_and_runs(self):
        work = scratch_dir()
        prefix, build = f"{work}/prefix", f"{work}/build"
        check_call([CMAKE, "--install", BUILD_DIR, "--prefix", prefix])
        self.assertTrue(os.path.isfile(f"{prefix}/lib/cmake/shardrun/shardrunConfig.cmake"))
        self.assertTrue(os.path.isfile(f"{prefix}/include/shardrun/runner/tasks/registry.hpp"))
        self.assertTrue(os.access(f"{prefix}/bin/shardrun", os.X_OK))
        self.assertTrue(os.path.isfile(f"{prefix}/share/shardrun/shardrun-report.py"))
        check_call([CMAKE, "-S", f"{SOURCE_DIR}/examples/custom-task", "-B", build,
                    f"-DCMAKE_PREFIX_PATH={prefix}", "-DCMAKE_BUILD_TYPE=Release"])
        check_call([CMAKE, "--build", build, "-j2"])
        shutil.copy(f"{SOURCE_DIR}/examples/custom-task/collatz.yaml", work)

        proc = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", f"{build}/collatz-runner", "run", "collatz.yaml",
                               "-q"], capture_output=True, text=True, env=clean_env(), cwd=work, timeout=300)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        with h5py.File(f"{work}/results/collatz.h5", "r") as f:
            n = f["params/n"][:].tolist()
            self.assertEqual(n, list(range(1, 301)))
            self.assertEqual(list(zip(f["results/steps"][:].tolist(), f["results/peak"][:].tolist())),
                             [collatz(k) for k in n])
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 300)
            self.assertLessEqual(set(f["tasks/rank"][:].tolist()), {0, 1})
            self.assertTrue(bool(f.attrs["complete"]))

    def test_stock_shardrun_does_not_know_the_kind(self):
        proc = run(["plan", f"{SOURCE_DIR}/examples/custom-task/collatz.yaml"])

        self.assertEqual(proc.returncode, 2)
        self.assertIn("collatz", proc.stderr)


if __name__ == "__main__":
    unittest.main()
