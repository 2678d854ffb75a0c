#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/heat2d/heat2d.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::tasks {
namespace {

/** `task: heat2d`: the built-in heat2d kernel (see docs of kernels/heat2d/heat2d.hpp for its parameters). */
class Heat2dKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "heat2d"; }
    /** The parameters `task: heat2d` takes (`shardrun kinds heat2d` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

using namespace kernel_support;

kernels::Heat2dParams read_params(const job::ParamMap& given)
{
    const auto params = Heat2dKind::parameters().with_defaults(given);
    kernels::Heat2dParams p;
    p.nx = params.integer("nx");
    p.ny = params.integer_or("ny", p.nx);
    p.alpha = params.number("alpha");
    p.steps = params.integer("steps");
    p.source = params.number("source");
    p.amplitude = params.number("amplitude");
    p.boundary = params.number("boundary");
    p.dt = params.contains("dt") ? params.number("dt") : (p.nx > 1 && p.alpha > 0 ? 0.8 * kernels::heat2d_stable_dt(p) : 0.0);
    return p;
}

std::int64_t read_stride(const job::ParamMap& given)
{
    const auto stride = Heat2dKind::parameters().with_defaults(given).integer("stride");
    if (stride < 1) SHARDRUN_THROW(JobFileError, "params.stride: " + std::to_string(stride) + " must be >= 1");
    return stride;
}

std::size_t strided(std::int64_t n, std::int64_t stride) { return static_cast<std::size_t>((n + stride - 1) / stride); }

}  // namespace

const ParamTable& Heat2dKind::parameters()
{
    static const ParamTable table{{
        integer_param("nx", 128, at_least(3), "grid points along x (spacing dx = 1/(nx-1))"),
        integer_param("ny", computed("nx"), at_least(3), "grid points along y"),
        number_param("alpha", 0.1, above(0), "diffusivity"),
        number_param("dt", computed("0.8 dx^2/(4 alpha)"), above(0), "time step; stable up to dx^2/(4 alpha)"),
        integer_param("steps", 100, at_least(0), "explicit time steps"),
        number_param("source", 0.0, {}, "constant heating rate inside the domain"),
        number_param("amplitude", 1.0, {}, "amplitude of the initial sine mode"),
        number_param("boundary", 0.0, {}, "temperature held on all four edges"),
        integer_param("stride", 1, at_least(1), "keep every stride-th point of the final field"),
        device_param(),
    }};
    return table;
}

void Heat2dKind::validate(const job::ParamMap& params, const JobView& /*job*/) const
{
    const auto p = read_params(params);
    read_stride(params);
    validate_params([&] { kernels::validate_heat2d(p); });
}

std::vector<io::FieldSpec> Heat2dKind::fields(const job::ParamMap& params) const
{
    const auto p = read_params(params);
    const auto stride = read_stride(params);
    return {{"field", io::DType::float32, {strided(p.ny, stride), strided(p.nx, stride)}, ""},
            {"total_heat", io::DType::float64, {}, ""},
            {"max_temperature", io::DType::float64, {}, ""},
            {"time", io::DType::float64, {}, ""},
            seconds_field()};
}

TaskOutcome Heat2dKind::run(const TaskContext& context) const
{
    return run_guarded(name(), [&] {
        const auto p = read_params(*context.params);
        const auto stride = read_stride(*context.params);
        auto u = kernels::heat2d_initial(p);
        const auto device = device_of(context);
        const double seconds = kernel_seconds(device, [&] {
            kernels::heat2d(device, p, u.data());  // u(t) after p.steps explicit steps
        });
        const double h = kernels::heat2d_spacing(p);
        const double total = std::accumulate(u.begin(), u.end(), 0.0) * h * h;  // ∫u dA
        const double hottest = *std::max_element(u.begin(), u.end());
        std::vector<float> field;
        field.reserve(strided(p.ny, stride) * strided(p.nx, stride));
        for (std::int64_t j = 0; j < p.ny; j += stride) {
            for (std::int64_t i = 0; i < p.nx; i += stride) field.push_back(static_cast<float>(u[j * p.nx + i]));
        }
        return io::TaskValues{array_bytes(field.data(), field.size(), field.size()), scalar_bytes(total),
                              scalar_bytes(hottest), scalar_bytes(static_cast<double>(p.steps) * p.dt),
                              scalar_bytes(seconds)};
    });
}

TaskKindEntry heat2d_kind_entry()
{
    return {"heat2d", "explicit 2-D heat equation on an nx x ny grid; final field, total heat, peak",
            &Heat2dKind::parameters(), [](const job::JobSpec&) { return std::make_unique<Heat2dKind>(); }, true};
}

}  // namespace shardrun::tasks
