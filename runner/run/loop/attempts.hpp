#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "io/attempt_log.hpp"

#include "runner/core/task_kind.hpp"
#include "runner/run/loop/rank_loop.hpp"

namespace shardrun::run {

/** How the attempts of one task ended. */
struct AttemptsEnd {
    tasks::TaskOutcome outcome;  ///< the last attempt's, shaped: failed when its values do not fit the fields
    /**
     * This rank, or a member of its group, is stopping, or the last attempt died of the signal of a
     * stop or drain that reached it (stop_signal_death.hpp): a failed outcome was cut short, not final.
     */
    bool stop = false;
    /** Every attempt made, numbered from context.attempt_base + 1 (this rank's view; the leader's is recorded). */
    std::vector<io::AttemptRecord> attempts;
    /** When the first attempt's work began, if later than its call (it waited for a worker to start). */
    std::optional<double> began;
    /**
     * Set when the last attempt failed with a device fault (settings.health): the GPU's, not the
     * task's, so it is not retried here and the rank gives the task back to run elsewhere,
     * its retries untouched. The evidence, for people.
     */
    std::string device_fault;
    /** CPU seconds summed over the attempts, and the largest peak resident bytes of any (NaN / -1: none measured). */
    double cpu_time = std::numeric_limits<double>::quiet_NaN();
    std::int64_t mem_peak = -1;
};

/**
 * @internal The one retry loop: runs the task `context` points at up to retries + 1 times,
 * catching what the kind throws (except RankFatalError, and CollectiveStall in a group) as a
 * failed attempt, and failing an ok attempt whose values do not match settings.fields.
 * context.attempt ends as the number of attempts made.
 *
 * After each attempt the rank and its group agree: alone (settings.group absent or of one
 * member) there is nothing to agree and it stops retrying at a stop or when the task asked
 * for a device this rank lacks (another attempt here would lack it too); in a group of
 * several it is an allgather, so that every member retries, or stops, together (collective
 * over the group), and a member's failure fails the task everywhere.
 * @param device_problem  why this rank cannot run the task (empty: it can)
 */
AttemptsEnd run_attempts(const LoopSettings& settings, tasks::TaskContext& context, const std::string& device_problem);

}  // namespace shardrun::run
