"""The files of the throwaway kernel kind `axpy` that throwaway_kernel_kind_test.py writes, keyed by
the paths of docs/developing/extending.md's "A kernel kind" list (NAME for the kernel's name), and the job it runs.
A trivial kernel: y = a·x + y over n values with x_i = i and y_i = 1, so the sum of y is
a·n(n-1)/2 + n."""

NAME = "axpy"
# Compiled (into the CUDA backend) only where the tree's own build has CUDA; never run here (no GPU).
CUDA_HALF = "kernels/NAME/NAME_cuda.cu"

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
    CUDA_HALF: r"""#include <cstddef>

#include "kernels/axpy/axpy.hpp"
#include "kernels/common/cuda_check.cuh"

namespace shardrun::kernels::cuda {
namespace {

__global__ void axpy_values(std::int64_t n, double a, const double* x, double* y)
{
    const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) y[i] = axpy_element(a, x[i], y[i]);
}

}  // namespace

void axpy(const Device& device, const AxpyShape& shape, const double* x, double* y)
{
    const std::size_t count = static_cast<std::size_t>(shape.n);
    const cudaStream_t stream = rank_stream(device.ordinal);
    DeviceBuffer<double> dx(count), dy(count);
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(dx.get(), x, dx.bytes(), cudaMemcpyHostToDevice, stream));
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(dy.get(), y, dy.bytes(), cudaMemcpyHostToDevice, stream));
    const unsigned block = 256;
    const auto grid = static_cast<unsigned>((shape.n + block - 1) / block);
    if (grid > 0) {
        axpy_values<<<grid, block, 0, stream>>>(shape.n, shape.a, dx.get(), dy.get());
        SHARDRUN_CUDA_CHECK_LAUNCH();
    }
    SHARDRUN_CUDA_CHECK(cudaMemcpyAsync(y, dy.get(), dy.bytes(), cudaMemcpyDeviceToHost, stream));
    SHARDRUN_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace shardrun::kernels::cuda
""",
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
#include "runner/core/task_kind.hpp"

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
            integer_param("n", 1000, at_least(1), "values"),
            number_param("a", 2.0, {}, "the factor"),
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
            // The table's typed defaults fill what the job leaves out: the default is written once.
            const auto params = parameters().with_defaults(*context.params);
            const kernels::AxpyShape shape{params.integer("n"), params.number("a")};
            std::vector<double> x(static_cast<std::size_t>(shape.n)), y(x.size(), 1.0);
            std::iota(x.begin(), x.end(), 0.0);
            const auto device = device_of(context);  // carries the run's stop token
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
    # docs/kernels.md: a row in the "Built-in kernels" table, inserted below its header (write_table_row).
    "docs/kernels.md": "| `axpy`       | n (1000), a (2)                                                     | total (Σ y) |\n",
}

JOB = """name: axpy-sweep
task: axpy
sweep:
  n: [10, 100, 1001]
  a: [0.5, 2.0]
schedule: dynamic
output: {path: results/axpy.h5}
"""
