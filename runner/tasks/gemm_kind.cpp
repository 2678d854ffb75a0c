#include <numeric>
#include <vector>

#include "kernels/common/seeded.hpp"
#include "kernels/gemm/gemm.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/tasks/auto_device_rules.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::tasks {
namespace {

/** `task: gemm`: the built-in gemm kernel (see docs of kernels/gemm/gemm.hpp for its parameters). */
class GemmKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "gemm"; }
    /** The parameters `task: gemm` takes (`shardrun kinds gemm` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

using namespace kernel_support;

/** The parameters of one product, read by read_params() from GemmKind::parameters()' defaults. */
struct GemmJob {
    kernels::GemmShape shape;
    int repeats = 0;
    bool double_precision = false;
    std::uint64_t seed = 0;
};

GemmJob read_params(const job::ParamMap& given)
{
    const auto params = GemmKind::parameters().with_defaults(given);
    GemmJob job;
    const auto n = params.integer("n");
    job.shape = {params.integer_or("m", n), n, params.integer_or("k", n)};
    job.repeats = static_cast<int>(params.integer("repeats"));
    const auto dtype = params.text("dtype");
    if (dtype != "float32" && dtype != "float64") {
        SHARDRUN_THROW(JobFileError, "params.dtype: '" + dtype + "' is not allowed; allowed: float32, float64");
    }
    job.double_precision = dtype == "float64";
    job.seed = static_cast<std::uint64_t>(params.integer("seed"));
    return job;
}

template <typename T>
io::TaskValues run_gemm(const GemmJob& job, const kernels::Device& device)
{
    const auto& s = job.shape;
    std::vector<T> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
    kernels::fill_seeded(a.data(), a.size(), job.seed, 0, T(-1), T(1));        // A: items [0, m·k)
    kernels::fill_seeded(b.data(), b.size(), job.seed, a.size(), T(-1), T(1)); // B: the next k·n
    const auto timing = kernels::gemm(device, s, a.data(), b.data(), c.data(), job.repeats);  // C = A·B
    const double checksum = std::accumulate(c.begin(), c.end(), 0.0);
    return {scalar_bytes(timing.seconds), scalar_bytes(timing.gflops), scalar_bytes(checksum)};
}

}  // namespace

const ParamTable& GemmKind::parameters()
{
    static const ParamTable table{{
        integer_param("n", 512, above(0), "columns of B and C; m and k default to it"),
        integer_param("m", computed("n"), above(0), "rows of A and C"),
        integer_param("k", computed("n"), above(0), "columns of A, rows of B"),
        integer_param("repeats", 3, above(0), "timed products after one warm-up; seconds is the best"),
        choice_param("dtype", "float32", {"float32", "float64"}, "element type of A, B and C"),
        integer_param("seed", 0, at_least(0), "seed of A's and B's values in [-1, 1)"),
        device_param(),
    }};
    return table;
}

void GemmKind::validate(const job::ParamMap& params, const JobView& /*job*/) const
{
    const auto job = read_params(params);
    validate_params([&] { kernels::validate_gemm(job.shape, job.repeats, job.double_precision ? 8 : 4); });
}

std::vector<io::FieldSpec> GemmKind::fields(const job::ParamMap&) const
{
    return {seconds_field(),
            {"gflops", io::DType::float64, {}, "GFLOP/s"},
            {"checksum", io::DType::float64, {}, ""}};
}

TaskOutcome GemmKind::run(const TaskContext& context) const
{
    return run_guarded(name(), [&] {
        const auto job = read_params(*context.params);
        const auto device = device_of(context);
        return job.double_precision ? run_gemm<double>(job, device) : run_gemm<float>(job, device);
    });
}

TaskKindEntry gemm_kind_entry()
{
    return {"gemm", "matrix product C = A B on the CPU (OpenBLAS) or GPU (cuBLAS); seconds, GFLOP/s, checksum",
            &GemmKind::parameters(), [](const job::JobSpec&) { return std::make_unique<GemmKind>(); }, true,
            gemm_cpu_if()};
}

}  // namespace shardrun::tasks
