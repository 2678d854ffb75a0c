"""Issue 21's "done when": a throwaway kernel kind, `axpy`, added by writing exactly the files
that docs/developing/extending.md ("A kernel kind") lists, into a copy of the source tree under
the build tree; the copy is configured as the tree's own build is (compilers, build type,
sanitizers, CUDA and its architectures: so ccache, when installed, reuses the tree's objects),
without tests; `shardrun` is built, and where the tree has CUDA also the CUDA backend with the
new kernel's CUDA half (compiled, not run: no GPU here); the new kind runs a sweep on the CPU
under mpiexec -np 2, is listed by `shardrun kinds` and checked by `shardrun selftest`. The
The page's list is parsed, so the test fails when the list and the files a new kernel kind needs
drift apart.

One listed file is written but not compiled, and the test says so:
tests/kernels/NAME/NAME_cpu_test.cpp: the copy has SHARDRUN_BUILD_TESTS=OFF, to keep this test to
the binary (and the CUDA backend).
"""
import os
import re
import shutil
import sys
import unittest

import h5py

from axpy_kernel_files import FILES, JOB, NAME
from tree_copy import CMAKE, check_call, configure_copy, copy_tree, has_cuda

SOURCE_DIR = os.environ["SHARDRUN_SOURCE_DIR"]
BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")


def kernel_kind_list(page_text):
    """The paths of the numbered list under **A kernel kind** of docs/developing/extending.md."""
    section = page_text.split("# Extending shardrun", 1)[1].split("\n## ", 1)[0]
    # The list is the first paragraph after the heading that starts with "1.".
    paragraphs = section.split("**A kernel kind**", 1)[1].split("\n\n")
    block = next(p for p in paragraphs if p.lstrip("\n").startswith("1. "))
    items = re.findall(r"^\d+\. `([^`]+)`", block, flags=re.M)
    return items


def write_table_row(path, row):
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

    def test_extending_list_is_what_the_kind_needs_and_the_kind_runs_under_mpi(self):
        with open(os.path.join(SOURCE_DIR, "docs", "developing", "extending.md")) as f:
            listed = kernel_kind_list(f.read())
        self.assertEqual(sorted(listed), sorted(FILES), "docs/developing/extending.md's 'A kernel kind' list and the files this test writes differ")
        self.assertLessEqual(len(listed), 8, "issue 21: a new kernel kind touches at most 8 files")

        src = os.path.join(self.work, "src")
        copy_tree(SOURCE_DIR, src)
        for rel, text in FILES.items():
            path = os.path.join(src, rel.replace("NAME", NAME))
            if rel == "docs/kernels.md":
                write_table_row(path, text)
                continue
            self.assertFalse(os.path.exists(path), f"{rel}: the tree already has a kernel called {NAME}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        build, env = configure_copy(src, BUILD_DIR, self.log, tests=False)
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
