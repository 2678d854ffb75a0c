#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardrun::bench::scheduler {

/** A heavy-tailed task duration law; every draw depends on (seed, task id) alone. */
struct DurationLaw {
    enum class Kind { lognormal, pareto, constant };
    Kind kind = Kind::lognormal;
    double scale = 1.0;  ///< lognormal: the median; pareto: the minimum x_m; constant: the value (seconds)
    double shape = 1.0;  ///< lognormal: sigma of the log; pareto: alpha (tail index)
    double cap = 0.0;    ///< no duration above cap x scale; 0 = uncapped
    std::uint64_t seed = 20261122;
    double sweep = 1.0;  ///< a size sweep: task id of T is `sweep`^(id / (T - 1)) x heavier (1: none)

    /** The duration of task `id`, in seconds. */
    double draw(std::uint64_t id) const noexcept;
    /** One line naming the law and its parameters. */
    std::string describe() const;
};

/** The durations of tasks 0..T-1, with prefix sums so a claim's total is O(1). */
class TaskDurations {
public:
    TaskDurations(const DurationLaw& law, std::uint64_t tasks);
    /** Durations given one by one (tests). */
    explicit TaskDurations(const std::vector<double>& durations);

    std::uint64_t size() const noexcept { return prefix_.size() - 1; }
    double at(std::uint64_t id) const noexcept { return prefix_[id + 1] - prefix_[id]; }
    /** Summed duration of ids [first, first + count). */
    double sum(std::uint64_t first, std::uint64_t count) const noexcept { return prefix_[first + count] - prefix_[first]; }
    double total() const noexcept { return prefix_.back(); }
    double longest() const noexcept { return longest_; }

private:
    void add(double duration);
    std::vector<double> prefix_{0.0};
    double longest_ = 0.0;
};

}  // namespace shardrun::bench::scheduler
