"""Issue 21's "done when": a throwaway kernel kind, `axpy`, added by writing exactly the files
that README.md ("Extending shardrun", "A kernel kind") lists, into a copy of the source tree under
the build tree; the copy is configured as the tree's own build is (compilers, build type,
sanitizers, CUDA and its architectures: so ccache, when installed, reuses the tree's objects),
without tests; `shardrun` is built, and where the tree has CUDA also the CUDA backend with the
new kernel's CUDA half (compiled, not run: no GPU here); the new kind runs a sweep on the CPU
under mpiexec -np 2, is listed by `shardrun kinds` and checked by `shardrun selftest`. The
README's list is parsed, so the test fails when the list and the files a new kernel kind needs
drift apart.

One listed file is written but not compiled, and the test says so:
tests/kernels/NAME/NAME_cpu_test.cpp: the copy has SHARDRUN_BUILD_TESTS=OFF, to keep this test to
the binary (and the CUDA backend).
"""
import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import h5py

from axpy_kernel_files import FILES, JOB, NAME

SOURCE_DIR = os.environ["SHARDRUN_SOURCE_DIR"]
BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")
CMAKE = shutil.which("cmake") or "cmake"


def readme_kernel_kind_list(readme_text):
    """The paths of the numbered list under **A kernel kind** in "## Extending shardrun"."""
    section = readme_text.split("## Extending shardrun", 1)[1].split("\n## ", 1)[0]
    block = section.split("**A kernel kind**", 1)[1].split("\n\n", 1)[0]
    items = re.findall(r"^\d+\. `([^`]+)`", block, flags=re.M)
    return items


def check_call(args, log, **kwargs):
    started = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)
    log.append(f"{time.monotonic() - started:6.1f} s  {' '.join(args[:4])}")
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return proc


def source_files(source_dir):
    """The tree's files as git lists them (tracked, and untracked ones git does not ignore), or
    everything but build folders and .git when the tree is not a git checkout."""
    if os.path.isdir(os.path.join(source_dir, ".git")) or os.path.isfile(os.path.join(source_dir, ".git")):
        proc = subprocess.run(["git", "-C", source_dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            return [p for p in proc.stdout.split("\0") if p and os.path.isfile(os.path.join(source_dir, p))]
    files = []
    for root, dirs, names in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
        files += [os.path.relpath(os.path.join(root, n), source_dir) for n in names]
    return files


def same_compilation_as(build_dir):
    """The -D options of build_dir that decide how a file compiles (compilers, build type,
    sanitizers), so that ccache reuses what building the tree itself compiled: scripts/build uses
    ccache when it is installed, with CCACHE_BASEDIR at the tree, as this test does at the copy."""
    wanted = ("CMAKE_BUILD_TYPE", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "SHARDRUN_SANITIZE",
              "CMAKE_CUDA_ARCHITECTURES", "CMAKE_CUDA_COMPILER")
    options = {"CMAKE_BUILD_TYPE": "Release"}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            name, _, value = line.rstrip("\n").partition("=")
            if name.split(":")[0] in wanted and value:
                options[name.split(":")[0]] = value
    options["SHARDRUN_CUDA"] = "ON" if has_cuda(build_dir) else "OFF"
    return [f"-D{name}={value}" for name, value in options.items()]


def has_cuda(build_dir):
    """Whether build_dir was built with CUDA: its CUDA backend library is there."""
    return os.path.exists(os.path.join(build_dir, "libshardrun_cuda.so"))


def write_readme_row(path, row):
    """Adds the kernel's row to the table of "## Built-in kernels", below its header and rule."""
    with open(path) as f:
        text = f.read()
    head, rest = text.split("## Built-in kernels\n", 1)
    section, tail = rest.split("\n## ", 1)
    lines = section.split("\n")
    rule = next(i for i, line in enumerate(lines) if re.match(r"^\|[-| ]+\|$", line))
    lines.insert(rule + 1, row.rstrip("\n"))
    with open(path, "w") as f:
        f.write(head + "## Built-in kernels\n" + "\n".join(lines) + "\n## " + tail)


class ThrowawayKernelKindTest(unittest.TestCase):
    def setUp(self):
        self.work = os.path.join(BUILD_DIR, "extend-throwaway-kernel-kind")
        shutil.rmtree(self.work, ignore_errors=True)
        self.addCleanup(shutil.rmtree, self.work, True)
        self.log = []

    def test_readme_list_is_what_the_kind_needs_and_the_kind_runs_under_mpi(self):
        with open(os.path.join(SOURCE_DIR, "README.md")) as f:
            listed = readme_kernel_kind_list(f.read())
        self.assertEqual(sorted(listed), sorted(FILES), "README's 'A kernel kind' list and the files this test writes differ")
        self.assertLessEqual(len(listed), 8, "issue 21: a new kernel kind touches at most 8 files")

        # The copy: source at work/src, build at work/src/build, the layout of this tree, so that
        # ccache (when present) sees the same relative paths as in a build of the tree itself.
        src = os.path.join(self.work, "src")
        for rel in source_files(SOURCE_DIR):
            target = os.path.join(src, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(SOURCE_DIR, rel), target)
        for rel, text in FILES.items():
            path = os.path.join(src, rel.replace("NAME", NAME))
            if rel == "README.md":
                write_readme_row(path, text)
                continue
            self.assertFalse(os.path.exists(path), f"{rel}: the tree already has a kernel called {NAME}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        build = os.path.join(src, "build")
        configure = [CMAKE, "-S", src, "-B", build, "-DSHARDRUN_BUILD_TESTS=OFF",
                     "-DSHARDRUN_BUILD_BENCHMARKS=OFF", *same_compilation_as(BUILD_DIR)]
        env = dict(os.environ)
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
            env["CCACHE_BASEDIR"] = src
        if has_cuda(BUILD_DIR):
            configure += ["-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
        check_call(configure, self.log, env=env)
        # With CUDA, the backend library too: the kernel's CUDA half compiles and joins the table.
        targets = ["shardrun"] + (["shardrun_cuda"] if has_cuda(BUILD_DIR) else [])
        check_call([CMAKE, "--build", build, "-j2", "--target", *targets], self.log, env=env)
        if has_cuda(BUILD_DIR):
            nm = check_call(["nm", "-C", os.path.join(build, "libshardrun_cuda.so")], self.log).stdout
            self.assertIn("kernels::cuda::axpy", nm, "the CUDA half did not join the backend")
        shardrun = os.path.join(build, "shardrun")

        kinds = check_call([shardrun, "kinds"], self.log).stdout
        self.assertRegex(kinds, rf"(?m)^{NAME}\s+y = a x \+ y")
        selftest = check_call([shardrun, "selftest", "--device", "cpu"], self.log).stdout
        self.assertRegex(selftest, rf"(?m)^{NAME}\s+cpu\s+float64\s+1001\s")
        self.assertIn("checks passed", selftest)

        run_dir = os.path.join(self.work, "run")
        os.makedirs(run_dir)
        with open(os.path.join(run_dir, "job.yaml"), "w") as f:
            f.write(JOB)
        check_call([MPIEXEC, "--oversubscribe", "-np", "2", shardrun, "run", "job.yaml", "-q"], self.log, cwd=run_dir,
                   timeout=300)
        with h5py.File(os.path.join(run_dir, "results/axpy.h5"), "r") as f:
            n, a = f["params/n"][:].tolist(), f["params/a"][:].tolist()
            self.assertEqual(sorted(zip(n, a)), sorted((n_, a_) for n_ in (10, 100, 1001) for a_ in (0.5, 2.0)))
            self.assertEqual(f["results/total"][:].tolist(), [a_ * n_ * (n_ - 1) / 2 + n_ for n_, a_ in zip(n, a)])
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 6)
            self.assertLessEqual(set(f["tasks/rank"][:].tolist()), {0, 1})
            self.assertTrue(bool(f.attrs["complete"]))
        print("\n".join(self.log), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
