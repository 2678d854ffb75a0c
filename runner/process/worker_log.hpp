#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shardrun::process {

/** <tasks_dir>/worker-rank<rank>.log: the rank's exec worker log (one per rank, beside the task folders). */
std::string worker_log_path(const std::string& tasks_dir, int rank);

/** Appends "shardrun: <note>\n" to the rank's worker log, so the log tells the whole story. */
void append_worker_note(const std::string& log_path, std::string_view note);

/** The worker's last `lines` lines in the log (within its last 4 KiB, shardrun's notes left out), joined by " | ". */
std::string worker_log_tail(const std::string& log_path, std::size_t lines = 5);

/**
 * Writes the log's tail as <task_dir>/stderr, where `shardrun status` looks for the output
 * of a failed task. Only failed tasks get the file: a worker task creates none otherwise.
 */
void write_task_stderr(const std::string& task_dir, const std::string& log_path);

}  // namespace shardrun::process
