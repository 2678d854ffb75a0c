#include "runner/cli/command_logs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "io/layout/output_layout.hpp"
#include "io/read/recorded_job.hpp"
#include "runner/cli/log_follow.hpp"
#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/storage/remote_copy.hpp"
#include "runner/storage/remote_task_logs.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void LogsCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("output", po::value<std::string>(&path_), "the results file (output.path of the job)")
        ("task", po::value<std::string>(&task_text_), "the task id")
        ("attempt", po::value<int>(&attempt_), "that attempt's output (1 = the first; default: the latest)")
        ("member", po::value<int>(&member_), "a group member's output (member 1, 2, ...; default: the leader's)")
        ("stderr", po::bool_switch(&stderr_), "stderr instead of stdout")
        ("follow,f", po::bool_switch(&follow_), "keep printing new lines until the task ends");
    positional.add("output", 1).add("task", 1);
}

namespace {

// The exec workers' logs (<output>.tasks/worker-rank<r>.log, one per rank, exec.mode: worker), sorted:
// a user who asks `logs OUT` for a worker that never started finds them here, not under a task id.
std::vector<std::string> worker_logs_of(const std::string& output)
{
    namespace fs = std::filesystem;
    std::vector<std::string> logs;
    std::error_code error;
    for (fs::directory_iterator it(io::layout::tasks_dir(output), error), end; !error && it != end; it.increment(error)) {
        const auto name = it->path().filename().string();
        if (name.starts_with("worker-rank") && name.ends_with(".log")) logs.push_back(it->path().string());
    }
    std::sort(logs.begin(), logs.end());
    return logs;
}

}  // namespace

CommandDoc LogsCommand::doc() const
{
    return {
        .description =
            "Prints the stdout (or, with `--stderr`, the stderr) of one task by its id: while the task runs, from "
            "its live file; after it ended, from the copy kept in `OUTPUT.h5.tasks/ID/` (one per attempt, the "
            "latest unless `--attempt N`; kept only when the task wrote something). `--follow` prints new lines as "
            "they come until the task ends; `--member M` reads a group member's output. For an `s3://` or `gs://` "
            "output it reads what the bucket keeps: the output of failed attempts. Asked for no task id where exec "
            "workers ran, it names the workers' own logs (`OUTPUT.h5.tasks/worker-rank0.log`, one per rank).\n\n"
            "Reach for it when `status` or `table` shows a task that failed or runs long and you want to read what "
            "the program said, without searching the output folder by hand.",
        .example = "shardrun logs results/ml-sweep.h5 3 --stderr",
        .exit_codes = {
            {exit_ok, "printed the task's output (with --follow: followed it to the task's end)"},
            {exit_task_failed, "the task kept no output on that stream: not started yet, it wrote none, or its run "
                               "ended without finishing it (said on stderr); or an output in a bucket that could not be read"},
            {exit_bad_input, "usage error, no output at that path, or no such task id in its job"},
        },
    };
}

void LogsCommand::check(const po::variables_map& values)
{
    if (values.count("output") && !values.count("task") && !storage::is_remote(path_)) {
        if (const auto logs = worker_logs_of(path_); !logs.empty()) {
            // An id of this job for the example (trial 41b: "3" in a job of ids 0 to 2).
            const auto count = io::recorded_task_count(path_);
            SHARDRUN_THROW(UsageError, fmt::format("logs: name a task id too{}, e.g. shardrun logs {} 0; the exec "
                                                   "workers' own output is in their logs: {}",
                                                   count && *count > 0 ? fmt::format(" (0 to {})", *count - 1) : "", path_,
                                                   fmt::join(logs, ", ")));
        }
    }
    if (!values.count("output") || !values.count("task")) {
        SHARDRUN_THROW(UsageError, "logs: name the results file and a task id, e.g. shardrun logs results/heat.h5 3");
    }
    if (task_text_.empty() || task_text_.find_first_not_of("0123456789") != std::string::npos || task_text_.size() > 19) {
        SHARDRUN_THROW(UsageError, "logs: the task id must be a non-negative integer, not '" + task_text_ + "'");
    }
    task_ = std::stoull(task_text_);
    if (values.count("attempt") && attempt_ < 1) {
        SHARDRUN_THROW(UsageError, "logs: --attempt counts from 1, not " + std::to_string(attempt_));
    }
    if (follow_ && storage::is_remote(path_)) {
        SHARDRUN_THROW(UsageError, "logs: --follow reads a running task's live output on its own machine; the bucket at " +
                                       path_ + " holds the output of attempts that failed (drop --follow)");
    }
    if (values.count("member") && member_ < 0) {
        SHARDRUN_THROW(UsageError, "logs: --member is a group member number (0 = the leader), not " + std::to_string(member_));
    }
}

namespace {

/** The highest N of a task folder's stdout.N and stderr.N (every attempt that wrote some), 0 when none. */
int last_kept_attempt(const std::filesystem::path& folder)
{
    int last = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const auto name = entry.path().filename().string();
        for (const std::string stream : {"stdout.", "stderr."}) {
            if (name.rfind(stream, 0) != 0) continue;
            const auto digits = name.substr(stream.size());
            if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 9) {
                last = std::max(last, std::stoi(digits));
            }
        }
    }
    return last;
}

}  // namespace

int LogsCommand::run()
{
    namespace fs = std::filesystem;
    // An s3:// or gs:// output: a downloaded copy, with the task's output the bucket keeps (its failed attempts').
    const auto remote = storage::open_remote_copy(path_);
    if (remote) storage::fetch_task_logs(remote->remote(), path_, {task_});
    const auto named = [&](const std::string& text) { return remote ? remote->named(text) : text; };
    const auto tasks = io::layout::tasks_dir(path_);
    if (!fs::exists(path_) && !fs::exists(io::layout::shards_dir(path_)) && !fs::exists(tasks)) {
        SHARDRUN_THROW(UsageError, "logs: no output at " + path_ + " (neither it nor " + tasks.string() + " exists); check the path");
    }
    if (const auto count = io::recorded_task_count(path_); count && task_ >= *count) {
        SHARDRUN_THROW(UsageError, "logs: " + named(path_) + " has no task " + std::to_string(task_) + ": its job has " +
                                       std::to_string(*count) + " tasks (ids 0 to " + std::to_string(*count - 1) + ")");
    }
    const LogTarget target{path_, task_, attempt_, member_, stderr_};
    if (follow_ ? follow_log(target) : print_log(target)) return exit_ok;
    if (left_by_a_dead_run(target)) {
        std::cerr << "shardrun: logs: task " << task_ << " was running when its run ended without finishing it (no run "
                  << "holds " << path_ << ": its rank was killed?); nothing of that attempt was kept; `shardrun run JOB "
                  << "--resume` runs it again\n";
        return exit_task_failed;
    }
    // An attempt past the task's last: say how many it had (trial 41b: "not started yet" misled).
    if (const int last = last_kept_attempt(tasks / std::to_string(task_)); attempt_ > 0 && last > 0 && attempt_ > last) {
        SHARDRUN_THROW(UsageError, "logs: task " + std::to_string(task_) + " has output of attempts 1 to " +
                                       std::to_string(last) + " only; --attempt " + std::to_string(attempt_) +
                                       " names none (without --attempt: the last)");
    }
    std::cerr << "shardrun: logs: task " << task_ << (member_ > 0 ? " member " + std::to_string(member_) : "")
              << (attempt_ > 0 ? " attempt " + std::to_string(attempt_) : "") << " has no " << (stderr_ ? "stderr" : "stdout")
              << " in " << named(tasks.string()) << "/ (output is kept only when a task writes some; not started yet, or wrote "
              << "none" << (remote ? "; the bucket keeps only failed attempts' output, every attempt's with exec.keep_files)\n"
                                   : ")\n");
    return exit_task_failed;
}

}  // namespace shardrun::cli
