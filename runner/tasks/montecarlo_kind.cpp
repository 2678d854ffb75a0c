#include "kernels/common/checks.hpp"
#include "kernels/montecarlo/montecarlo.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/tasks/device_param.hpp"
#include "runner/tasks/kernel_kind_support.hpp"
#include "runner/tasks/param_table.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::tasks {
namespace {

/** `task: montecarlo`: the built-in montecarlo kernel (see docs of kernels/montecarlo/montecarlo.hpp for its parameters). */
class MonteCarloKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "montecarlo"; }
    /** The parameters `task: montecarlo` takes (`shardrun kinds montecarlo` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

using namespace kernel_support;

/** The option and the simulation of one task, with the table's defaults for what the job leaves out. */
struct Pricing {
    kernels::OptionParams option;
    std::int64_t paths = 0;
    std::uint64_t seed = 0;
};

Pricing read_pricing(const job::ParamMap& given)
{
    const auto params = MonteCarloKind::parameters().with_defaults(given);
    Pricing p;
    p.option.spot = params.number("spot");
    p.option.strike = params.number("strike");
    p.option.rate = params.number("rate");
    p.option.volatility = params.number("volatility");
    p.option.maturity = params.number("maturity");
    p.paths = params.integer("paths");
    p.seed = static_cast<std::uint64_t>(params.integer("seed"));
    return p;
}

}  // namespace

const ParamTable& MonteCarloKind::parameters()
{
    static const ParamTable table{{
        number_param("spot", 100.0, above(0), "price of the underlying today"),
        number_param("strike", 100.0, above(0), "strike of the European call"),
        number_param("rate", 0.05, {}, "risk-free rate; |rate x maturity| <= 1"),
        number_param("volatility", 0.2, above(0), "annual volatility; volatility x sqrt(maturity) <= 1.5"),
        number_param("maturity", 1.0, above(0), "years to expiry"),
        integer_param("paths", 1'000'000, at_least(2), "simulated paths"),
        integer_param("seed", 0, at_least(0), "seed of the paths' normal draws"),
        device_param(),
    }};
    return table;
}

void MonteCarloKind::validate(const job::ParamMap& params, const JobView& /*job*/) const
{
    const auto [option, paths, seed] = read_pricing(params);
    validate_params([&] {
        kernels::validate_option(option);
        if (paths < 2) SHARDRUN_THROW(kernels::InvalidKernelArgument, "paths", "paths = " + std::to_string(paths) + " must be >= 2");
    });
}

std::vector<io::FieldSpec> MonteCarloKind::fields(const job::ParamMap&) const
{
    return {{"price", io::DType::float64, {}, ""},
            {"standard_error", io::DType::float64, {}, ""},
            {"paths_per_second", io::DType::float64, {}, "1/s"},
            seconds_field()};
}

TaskOutcome MonteCarloKind::run(const TaskContext& context) const
{
    return run_guarded(name(), [&] {
        const auto [option, paths, seed] = read_pricing(*context.params);
        const auto device = device_of(context);
        kernels::MonteCarloSums sums;
        const double seconds = kernel_seconds(device, [&] {
            // Σ payoff over paths [0, paths): exact integer sums, the same bits on any rank
            sums = kernels::montecarlo_sums(device, option, seed, 0, paths);
        });
        const auto price = kernels::montecarlo_price(option, sums);
        const double rate = seconds > 0 ? static_cast<double>(paths) / seconds : 0.0;
        return io::TaskValues{scalar_bytes(price.price), scalar_bytes(price.standard_error), scalar_bytes(rate),
                              scalar_bytes(seconds)};
    });
}

TaskKindEntry montecarlo_kind_entry()
{
    return {"montecarlo", "Monte Carlo price of a European call, the same bits on any device; price, standard error",
            &MonteCarloKind::parameters(), [](const job::JobSpec&) { return std::make_unique<MonteCarloKind>(); }, true};
}

}  // namespace shardrun::tasks
