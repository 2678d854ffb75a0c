#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runner/run/rank_stats.hpp"

/**
 * @file
 * The end of a cloud element's own log (the container's stderr, which CloudWatch and Cloud
 * Logging keep when the machine is gone): each failed task's reason and its last stderr lines.
 */
namespace shardrun::run {

/** Failed tasks shown with their lines at the end of an element's log; the others are counted. */
constexpr std::size_t element_log_tasks = 10;

/** The last `count` lines of `file` (read from its last 8 KiB; each cut to 200 characters); empty when unreadable. */
std::vector<std::string> last_lines(const std::string& file, std::size_t count);

/**
 * When `task_id` is among the first element_log_tasks failures of `stats`: keeps the last `lines`
 * of its <tasks_dir>/<task_id>/stderr with it (RankStats::failures travel to rank 0 with the stats).
 */
void add_stderr_tail(RankStats& stats, std::uint64_t task_id, const std::string& tasks_dir, std::size_t lines);

/**
 * "shardrun: failed tasks' last stderr lines ...", then per failed task (lowest ids first, at most
 * element_log_tasks) its exit code, reason and lines, then "and N more failed tasks" naming
 * `status`; empty when no task failed. `output`: the output as the user named it (the URL).
 */
std::string failed_tasks_block(const std::string& output, const std::vector<RankStats>& ranks);

}  // namespace shardrun::run
