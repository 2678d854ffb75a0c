#include "task_durations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shardrun::bench::scheduler {
namespace {

std::uint64_t splitmix(std::uint64_t x) noexcept
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit(std::uint64_t bits) noexcept { return (static_cast<double>(bits >> 11) + 0.5) * 0x1p-53; }  // in (0, 1)

}  // namespace

double DurationLaw::draw(std::uint64_t id) const noexcept
{
    // Counter-based draws (as claims_bench): every schedule of one run sees the same tasks.
    const double u1 = unit(splitmix(seed + 2 * id)), u2 = unit(splitmix(seed + 2 * id + 1));
    double value = scale;
    if (kind == Kind::lognormal) {
        const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
        value = scale * std::exp(shape * z);
    } else if (kind == Kind::pareto) {
        value = scale * std::pow(u1, -1.0 / shape);
    }
    return cap > 0 ? std::min(value, cap * scale) : value;
}

std::string DurationLaw::describe() const
{
    auto capped = cap > 0 ? fmt::format(", capped at {:g} x", cap) : std::string(", uncapped");
    if (sweep != 1.0) capped += fmt::format(", size sweep: task id of T x {:g}^(id/(T-1))", sweep);
    switch (kind) {
    case Kind::lognormal: return fmt::format("log-normal (median {:g} s, sigma {:g}{}, seed {})", scale, shape, capped, seed);
    case Kind::pareto: return fmt::format("Pareto (x_m {:g} s, alpha {:g}{}, seed {})", scale, shape, capped, seed);
    case Kind::constant: break;
    }
    return fmt::format("constant {:g} s", scale);
}

TaskDurations::TaskDurations(const DurationLaw& law, std::uint64_t tasks)
{
    prefix_.reserve(tasks + 1);
    // The heavy points of a size sweep lie next to each other in id order, the heaviest last.
    const double growth = tasks > 1 && law.sweep != 1.0 ? std::log(law.sweep) / static_cast<double>(tasks - 1) : 0.0;
    for (std::uint64_t id = 0; id < tasks; ++id) add(law.draw(id) * std::exp(growth * static_cast<double>(id)));
}

TaskDurations::TaskDurations(const std::vector<double>& durations)
{
    for (const double d : durations) add(d);
}

void TaskDurations::add(double duration)
{
    // Sums of 1e7 doubles stay within ~1e-9 relative: far below the 3 digits printed.
    prefix_.push_back(prefix_.back() + duration);
    longest_ = std::max(longest_, duration);
}

}  // namespace shardrun::bench::scheduler
