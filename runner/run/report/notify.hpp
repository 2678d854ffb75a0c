#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/job/job_spec.hpp"
#include "runner/run/rank_stats.hpp"
#include "runner/run/report/summary.hpp"

/**
 * @file
 * `notify:` (README, "Being told when a run ends"): rank 0 tells a command and/or a URL how the
 * run ended, once, after the summary. Nothing it does changes the run's exit code.
 */
namespace shardrun::run {

/** The ending an exit code names: "end" (0: every task ok), "drain" (3, 4: cut short), "fail" (any other). */
std::string notify_ending(int exit_code);

/** Where the run ran, for the notify JSON: the scheduler's name and its ids (SchedulerInfo). */
struct NotifyOrigin {
    std::string scheduler;
    std::map<std::string, std::string> ids;
};

/**
 * The JSON a notify receives: summary_json()'s object with "event" the ending, "pending" (tasks
 * of this element without a final status), "elapsed_seconds", "scheduler", "scheduler_ids" and
 * "first_failure" ({task_id, exit_code, message} of the lowest failed task id; null when none).
 */
std::string notify_json(const RunTotals& totals, const std::vector<RankStats>& ranks, const std::string& ending,
                        const NotifyOrigin& origin);

/**
 * Runs notify.command (through /bin/sh, `json` on stdin and in the file $SHARDRUN_NOTIFY_JSON) and
 * POSTs `json` to notify.url with curl, when `ending` is one of notify.on. Each is stopped after
 * notify.timeout; a failure, a timeout or a missing curl is one warning line on stderr. Never throws.
 */
void send_notify(const job::NotifySpec& notify, const std::string& ending, const std::string& json);

}  // namespace shardrun::run
