#include "runner/job/task_space.hpp"

#include <algorithm>

#include "runner/job/job_checks.hpp"

namespace shardrun::job {

TaskSpace::TaskSpace(const Sweep& sweep, const ParamMap& fixed, bool has_data, std::uint64_t items,
                     std::uint64_t chunk)
    : sweep_(sweep), fixed_(fixed), has_data_(has_data), items_(items), chunk_(std::max<std::uint64_t>(chunk, 1)),
      chunks_(has_data ? items / chunk_ + (items % chunk_ != 0 ? 1 : 0) : 1), points_(sweep.size())
{
}

TaskSpace TaskSpace::of(const JobSpec& spec, std::uint64_t items)
{
    // items may come from data.input, known only now: the product is checked again here.
    checked_task_count(spec.sweep.size(), spec.data.present, items, std::max<std::uint64_t>(spec.data.chunk, 1),
                       spec.file + ": data");
    return TaskSpace(spec.sweep, spec.params, spec.data.present, items, spec.data.chunk);
}

ParamMap TaskSpace::params_of(std::uint64_t id) const
{
    ParamMap params = fixed_;
    sweep_.apply(point_of(id), params);
    return params;
}

std::optional<DataRange> TaskSpace::range_of(std::uint64_t id) const
{
    if (!has_data_) return std::nullopt;
    const auto chunk = id % chunks_;
    return DataRange{chunk * chunk_, std::min(items_, (chunk + 1) * chunk_)};
}

std::uint64_t TaskSpace::items_in(std::uint64_t first, std::uint64_t last) const noexcept
{
    if (!has_data_ || chunks_ == 0 || last <= first) return 0;
    // Every full sweep point covers all items; count the partial points at both ends.
    const auto items_before = [this](std::uint64_t id) {
        const auto point = id / chunks_;
        const auto chunk = id % chunks_;
        return point * items_ + std::min(items_, chunk * chunk_);
    };
    return items_before(last) - items_before(first);
}

}  // namespace shardrun::job
