#pragma once

#include <memory>

#include "runner/job/job_spec.hpp"
#include "runner/placement/placement.hpp"
#include "collectives/claims/work_counters.hpp"

namespace shardrun::run {

/** Hands one rank its task ids, batch by batch; a batch with count 0 means no more work. */
class WorkSource {
public:
    virtual ~WorkSource() = default;
    virtual placement::IdBatch next() = 0;
};

/**
 * The source for this rank's group under `schedule`. Only a group's leader claims work
 * (the other members get an empty source: the group loop hands them the leader's ids).
 * @param counters  the shared claim counter (dynamic schedule)
 */
std::unique_ptr<WorkSource> make_work_source(const job::ScheduleSpec& schedule, placement::IdRange element,
                                             const placement::GroupLayout& group, collectives::WorkCounters& counters);

}  // namespace shardrun::run
