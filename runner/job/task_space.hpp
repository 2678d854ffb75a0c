#pragma once

#include <cstdint>
#include <optional>

#include "runner/job/data_range.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/param_map.hpp"

namespace shardrun::job {

/**
 * Task ids 0..T-1 of a job: sweep points x data chunks, chunk index fastest:
 * id = point * chunks + chunk. Computed on demand from the id, never materialised.
 */
class TaskSpace {
public:
    /**
     * @param has_data  the job splits a data range (then items == 0 means no tasks at all)
     * @param items  data items; @param chunk  items per task
     */
    TaskSpace(const Sweep& sweep, const ParamMap& fixed, bool has_data, std::uint64_t items, std::uint64_t chunk);

    /** Builds the space of `spec`; `items` overrides spec.data.items (for data.input). */
    static TaskSpace of(const JobSpec& spec, std::uint64_t items);

    std::uint64_t size() const noexcept { return points_ * chunks_; }
    std::uint64_t sweep_points() const noexcept { return points_; }
    std::uint64_t chunks() const noexcept { return chunks_; }
    bool has_ranges() const noexcept { return has_data_; }

    /** The sweep point of task `id`. */
    std::uint64_t point_of(std::uint64_t id) const noexcept { return chunks_ ? id / chunks_ : 0; }
    /** Fixed params overlaid by the sweep point of task `id`. */
    ParamMap params_of(std::uint64_t id) const;
    /** Overwrites the swept parameters of `params` (made by params_of) with those of task `id`. */
    void update_params(std::uint64_t id, ParamMap& params) const { sweep_.apply(point_of(id), params); }
    /** [start, end) of task `id`, when the job has data ranges. */
    std::optional<DataRange> range_of(std::uint64_t id) const;
    /** Items in [first, last) of task ids (0 without data ranges). Constant time. */
    std::uint64_t items_in(std::uint64_t first, std::uint64_t last) const noexcept;

private:
    Sweep sweep_;            // copies: a Sweep shares its axes, so this is cheap
    ParamMap fixed_;
    bool has_data_;
    std::uint64_t items_, chunk_, chunks_, points_;
};

}  // namespace shardrun::job
