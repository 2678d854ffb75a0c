#pragma once

#include <memory>
#include <vector>

#include "collectives/claims/work_counters.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/placement/placement.hpp"

namespace shardrun::run {

/** Hands one rank its task ids, batch by batch; a batch with count 0 means no more work. */
class WorkSource {
public:
    virtual ~WorkSource() = default;
    virtual placement::IdBatch next() = 0;
    /**
     * True when ids this rank does not take go to other ranks anyway (the dynamic schedule's
     * shared claims); false when they are this rank's alone (a static share), so a rank that
     * stops early (its GPU quarantined) must give the rest back.
     */
    virtual bool shared() const noexcept { return false; }
    /** A task this rank took from next() ended after `seconds` (the dynamic schedule sizes its claims from these). */
    virtual void task_finished(double /*seconds*/) {}
    /**
     * Ids this source holds that no rank has started, taken out of the source (a shared
     * source's claimed ids, which a rank that stops early gives back); count 0 when none.
     */
    virtual placement::IdBatch release() { return {}; }
};

/** Hands out a fixed list of batches once (tasks other ranks gave back). */
std::unique_ptr<WorkSource> make_list_source(std::vector<placement::IdBatch> batches);

/**
 * The source for this rank's group under `schedule`. Only a group's leader claims work
 * (the other members get an empty source: the group loop hands them the leader's ids).
 * @param counters  the shared claim counter (dynamic schedule)
 * @param slots  tasks this rank runs at once (a dynamic claim covers claim_span_seconds of all of them)
 */
std::unique_ptr<WorkSource> make_work_source(const job::ScheduleSpec& schedule, placement::IdRange element,
                                             const placement::GroupLayout& group, collectives::WorkCounters& counters,
                                             int slots = 1);

}  // namespace shardrun::run
