#pragma once

#include <string>
#include <vector>

/**
 * @file
 * @internal An exec task's folder (<output>.tasks/<id>/), made and written only through a
 * descriptor opened with O_NOFOLLOW, so a folder planted as a symlink is refused and nothing
 * outside it is touched. Every function returns an error message, or empty.
 */
namespace shardrun::process {

/** Makes `task_dir` if missing and opens it (O_PATH) for the *at calls into `fd`. */
std::string open_task_dir(const std::string& task_dir, int& fd);

/**
 * Makes `task_dir` if missing and removes what an earlier attempt or run left in it (stdout,
 * stderr, result.json), refusing a task_dir that is a symlink. `fresh` (when given) tells whether
 * it was made now, so holds nothing to clear.
 */
std::string prepare_task_dir(const std::string& task_dir, bool* fresh = nullptr);

/**
 * When task_dir exists from an earlier attempt or run, removes its stdout, stderr and
 * result.json, so nothing stale is read or shown; creates nothing.
 */
std::string clear_stale_outputs(const std::string& task_dir);

/**
 * Removes the result files `names` that a failed earlier attempt left in `task_dir` (kept there
 * for the user to look at), once a later attempt succeeded: a truncated loss.npy beside a task
 * that is ok would read as its result. Creates nothing; no folder is no error.
 */
std::string remove_kept_results(const std::string& task_dir, const std::vector<std::string>& names);

/**
 * The highest attempt number k of the per-attempt output `stdout.<k>` or `stderr.<k>` kept in
 * `task_dir` (0 when none, or no folder): what earlier runs of the task left, so that a resumed
 * run numbers its attempts after them instead of overwriting their output.
 */
int kept_attempts(const std::string& task_dir);

}  // namespace shardrun::process
