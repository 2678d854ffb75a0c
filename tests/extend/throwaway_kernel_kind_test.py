"""Issue 21's "done when": a throwaway kernel kind, `axpy`, added by writing exactly the files
that README.md ("Extending shardrun", "A kernel kind") lists, into a copy of the source tree under
the build tree; the copy is configured without CUDA and without tests, only `shardrun` is built,
and the new kind runs a sweep under mpiexec -np 2, is listed by `shardrun kinds` and checked by
`shardrun selftest`. The README's list is parsed, so the test fails when the list and the files a
new kernel kind needs drift apart.

Two of the listed files are written but not built, and the test says so:
- kernels/NAME/NAME_cuda.cu is left out: the copy is configured with SHARDRUN_CUDA=OFF, which
  builds no *.cu (the dispatch's cuda:: call is the generated forwarder, which throws NotCompiled);
- tests/kernels/NAME/NAME_cpu_test.cpp is written but not compiled: the copy has
  SHARDRUN_BUILD_TESTS=OFF, to keep this test to the one target.
"""
import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import h5py

SOURCE_DIR = os.environ["SHARDRUN_SOURCE_DIR"]
BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]
MPIEXEC = os.environ.get("SHARDRUN_MPIEXEC", "mpiexec")
CMAKE = shutil.which("cmake") or "cmake"
NAME = "axpy"
# CUDA_HALF: in the README's list, not written (see the docstring).
CUDA_HALF = "kernels/NAME/NAME_cuda.cu"

# The new kernel kind's files, keyed by the README's paths (NAME for the kernel's name). A trivial
# kernel: y = a·x + y over n values with x_i = i and y_i = 1, so the sum of y is a·n(n-1)/2 + n.
FILES = {
    "kernels/NAME/NAME.hpp": r"""#pragma once

#include <cstdint>
#include <vector>

#include "kernels/axpy/axpy_element.hpp"
#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** y = a·x + y over n values. */
struct AxpyShape {
    std::int64_t n = 0;
    double a = 0.0;
};

#define SHARDRUN_DECLARE_AXPY_KERNEL void axpy(const Device& device, const AxpyShape& shape, const double* x, double* y)

namespace cpu {
SHARDRUN_DECLARE_AXPY_KERNEL;
}  // namespace cpu

namespace cuda {
SHARDRUN_DECLARE_AXPY_KERNEL;
}  // namespace cuda

#define SHARDRUN_AXPY_CUDA_TABLE(X) X(cuda, axpy, axpy, "axpy", SHARDRUN_DECLARE_AXPY_KERNEL, (device, shape, x, y))

inline SHARDRUN_DECLARE_AXPY_KERNEL
{
    switch (device.kind) {
    case DeviceKind::cuda: return cuda::axpy(device, shape, x, y);
    case DeviceKind::cpu: break;
    }
    cpu::axpy(device, shape, x, y);
}

namespace reference {
std::vector<double> axpy(const AxpyShape& shape, const double* x, const double* y);
}  // namespace reference

}  // namespace shardrun::kernels
""",
    "kernels/NAME/NAME_element.hpp": r"""#pragma once

#include "kernels/common/host_device.hpp"

namespace shardrun::kernels {

SHARDRUN_HOST_DEVICE inline double axpy_element(double a, double x, double y) { return a * x + y; }

}  // namespace shardrun::kernels
""",
    "kernels/NAME/NAME_cpu.cpp": r"""#include "kernels/axpy/axpy.hpp"

namespace shardrun::kernels::cpu {

void axpy(const Device&, const AxpyShape& shape, const double* x, double* y)
{
#pragma omp parallel for
    for (std::int64_t i = 0; i < shape.n; ++i) y[i] = axpy_element(shape.a, x[i], y[i]);
}

}  // namespace shardrun::kernels::cpu
""",
    CUDA_HALF: None,
    "kernels/NAME/NAME_check.cpp": r"""#include "kernels/axpy/axpy.hpp"
#include "kernels/selftest/selftest_case_support.hpp"

namespace shardrun::kernels {
namespace {

SelftestRow axpy_float64(const Device& device)
{
    using namespace selftest_support;
    const AxpyShape shape{1001, 0.75};
    const auto x = random_values<double>(shape.n, 51);
    auto y = random_values<double>(shape.n, 52);
    const auto want = reference::axpy(shape, x.data(), y.data());
    axpy(device, shape, x.data(), y.data());
    return {"axpy", device.label(), "float64", size_text(shape.n), reference::relative_error(y, want), 1e-15};
}

}  // namespace

std::vector<double> reference::axpy(const AxpyShape& shape, const double* x, const double* y)
{
    std::vector<double> out(static_cast<std::size_t>(shape.n));
    for (std::int64_t i = 0; i < shape.n; ++i) out[i] = shape.a * x[i] + y[i];
    return out;
}

std::vector<SelftestCase> axpy_selftest_cases() { return {{"axpy", "float64", axpy_float64}}; }

}  // namespace shardrun::kernels
""",
    "runner/tasks/NAME_kind.cpp": r"""#include <numeric>
#include <vector>

#include "kernels/axpy/axpy.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {
namespace {

using namespace kernel_support;

/** `task: axpy`: y = a·x + y with x_i = i and y_i = 1; the result is the sum of y. */
class AxpyKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "axpy"; }
    static const ParamTable& parameters()
    {
        static const ParamTable table{{
            integer_param("n", "1000", at_least(1), "values"),
            number_param("a", "2", {}, "the factor"),
            device_param(),
        }};
        return table;
    }

    void validate(const job::ParamMap&, const JobView&) const override {}

    std::vector<io::FieldSpec> fields(const job::ParamMap&) const override
    {
        return {{"total", io::DType::float64, {}, ""}, seconds_field()};
    }

    TaskOutcome run(const TaskContext& context) const override
    {
        return run_guarded(name(), [&] {
            const kernels::AxpyShape shape{context.params->integer_or("n", 1000), context.params->number_or("a", 2.0)};
            std::vector<double> x(static_cast<std::size_t>(shape.n)), y(x.size(), 1.0);
            std::iota(x.begin(), x.end(), 0.0);
            const auto device = device_of(context.device);
            const double seconds = kernel_seconds(device, [&] { kernels::axpy(device, shape, x.data(), y.data()); });
            return io::TaskValues{scalar_bytes(std::accumulate(y.begin(), y.end(), 0.0)), scalar_bytes(seconds)};
        });
    }
};

}  // namespace

TaskKindEntry axpy_kind_entry()
{
    return {"axpy", "y = a x + y (a throwaway kernel kind); total", &AxpyKind::parameters(),
            [](const job::JobSpec&) { return std::make_unique<AxpyKind>(); }, true};
}

}  // namespace shardrun::tasks
""",
    "tests/kernels/NAME/NAME_cpu_test.cpp": r"""#include <gtest/gtest.h>

#include <vector>

#include "kernels/axpy/axpy.hpp"
#include "kernels/reference/reference.hpp"

TEST(AxpyCpu, MatchesTheReference)
{
    using namespace shardrun::kernels;
    const AxpyShape shape{17, 3.0};
    std::vector<double> x(17, 2.0), y(17, 1.0);
    const auto want = reference::axpy(shape, x.data(), y.data());
    axpy(Device::cpu(), shape, x.data(), y.data());
    EXPECT_EQ(reference::relative_error(y, want), 0.0);
}
""",
    # README.md: a row in the "Built-in kernels" table, inserted below its header (write_readme_row).
    "README.md": "| `axpy`       | n (1000), a (2)                                                     | total (Σ y) |\n",
}

JOB = """name: axpy-sweep
task: axpy
sweep:
  n: [10, 100, 1001]
  a: [0.5, 2.0]
schedule: dynamic
output: {path: results/axpy.h5}
"""


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
            if text is None:
                self.assertEqual(rel, CUDA_HALF)  # left out: the copy builds no CUDA (SHARDRUN_CUDA=OFF)
                self.assertFalse(os.path.exists(path))
                continue
            if rel == "README.md":
                write_readme_row(path, text)
                continue
            self.assertFalse(os.path.exists(path), f"{rel}: the tree already has a kernel called {NAME}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

        build = os.path.join(src, "build")
        configure = [CMAKE, "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DSHARDRUN_CUDA=OFF",
                     "-DSHARDRUN_BUILD_TESTS=OFF", "-DSHARDRUN_BUILD_BENCHMARKS=OFF"]
        env = dict(os.environ)
        if shutil.which("ccache"):
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
            env["CCACHE_BASEDIR"] = src
        check_call(configure, self.log, env=env)
        check_call([CMAKE, "--build", build, "-j2", "--target", "shardrun"], self.log, env=env)
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
