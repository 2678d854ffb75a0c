#include "runner/run/loop/spend_budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shardrun::run {

SpendBudget::SpendBudget(job::BudgetSpec spec, double earlier, std::uint64_t earlier_tasks)
    : spec_(spec), earlier_tasks_(static_cast<std::int64_t>(earlier_tasks))
{
    earlier_ = static_cast<std::int64_t>(std::llround(to_units(earlier)));
    limit_ = static_cast<std::int64_t>(std::llround(to_units(spec_.limit)));
}

double SpendBudget::to_units(double amount) const
{
    return spec_.unit == job::BudgetSpec::Unit::kwh ? amount * 3.6e9 : amount * 1e6;  // mJ per kWh; µ$ per $
}

double SpendBudget::from_units(double units) const
{
    return spec_.unit == job::BudgetSpec::Unit::kwh ? units / 3.6e9 : units / 1e6;
}

void SpendBudget::bind(collectives::WorkCounters& counters)
{
    std::lock_guard lock(mutex_);
    counters_ = &counters;
}

bool SpendBudget::may_start(std::int64_t& expected)
{
    expected = 0;
    if (exhausted_.load()) return false;
    std::lock_guard lock(mutex_);
    if (counters_ == nullptr) return true;
    const auto tally = counters_->read_spend();
    // The mean over every task that spent (earlier runs' too); before any, nothing is known: the first tasks start.
    const auto tasks = earlier_tasks_ + tally.finished;
    const auto mean = tasks > 0 ? (earlier_ + tally.spent) / tasks : 0;
    if (check(tally, mean)) return false;
    expected = mean;
    counters_->add_spend({0, mean, 0});
    return true;
}

void SpendBudget::finished(std::int64_t expected, const io::TaskGpuUsage& usage)
{
    const double amount = spec_.unit == job::BudgetSpec::Unit::kwh ? usage.total_energy_j / 3.6e6 : usage.cost_usd;
    const auto spent = std::isnan(amount) ? 0 : static_cast<std::int64_t>(std::llround(to_units(amount)));
    std::lock_guard lock(mutex_);
    if (counters_ != nullptr) counters_->add_spend({spent, -expected, 1});
}

bool SpendBudget::poll(collectives::WorkCounters& counters)
{
    if (exhausted_.load()) return true;
    if (counters.stop_level() >= collectives::StopLevel::drain) return true;  // draining already: nothing to decide
    std::lock_guard lock(mutex_);
    const auto tally = counters.read_spend();  // on world rank 0: every node's
    check(tally, 0);
    return true;
}

std::string SpendBudget::reason() const
{
    std::lock_guard lock(mutex_);
    return reason_;
}

bool SpendBudget::check(const collectives::SpendTally& tally, std::int64_t next)
{
    if (exhausted_.load()) return true;
    const auto spent = earlier_ + tally.spent;
    const auto projected = spent + tally.running + next;
    if (projected <= limit_) return false;
    const auto left = std::max<std::int64_t>(0, limit_ - spent);
    // The reason is printed at the end of the run, when the tasks counted as running have finished: its
    // figures are said as of the moment of the decision, not as if they were still running.
    reason_ = fmt::format(
        "budget {} reached: spent {} when it stopped new tasks, with {} more expected of the tasks running then (they "
        "were let finish), {} left{}; no new task was started. Go on with a raised budget: --resume --set budget=... "
        "(see docs/troubleshooting.md#budget)",
        spec_.text(spec_.limit), spec_.text(from_units(static_cast<double>(spent))),
        spec_.text(from_units(static_cast<double>(tally.running))), spec_.text(from_units(static_cast<double>(left))),
        next > 0 ? fmt::format(" (a task costs about {})", spec_.text(from_units(static_cast<double>(next)))) : std::string());
    exhausted_.store(true);
    if (counters_ != nullptr) counters_->request_stop(collectives::StopLevel::drain);
    return true;
}

}  // namespace shardrun::run
