// What the exec kind's program sees: its placeholders' values and its environment, per task or,
// for a worker, once per rank.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string_view>

#include "io/input/dataset_reader.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/process/results/result_files.hpp"
#include "runner/process/typed_env.hpp"
#include "runner/process/worker_log.hpp"
#include "runner/job/argv_template.hpp"
#include "runner/tasks/exec_kind.hpp"
#include "runner/tasks/exec_kind_internal.hpp"
#include "runner/tasks/thread_variables.hpp"

namespace shardrun::tasks {

using namespace process;

std::optional<std::string> exec_builtin_value(const TaskContext& context, std::string_view name)
{
    if (name == "task_id") return std::to_string(context.task_id);
    if (name == "task_count") return std::to_string(context.task_count);
    if (name == "start") return context.range ? std::to_string(context.range->start) : "";
    if (name == "end") return context.range ? std::to_string(context.range->end) : "";
    if (name == "rank") return std::to_string(context.rank);
    if (name == "device") return context.device.label();
    if (name == "task_dir") return context.task_dir;
    if (name == "checkpoint_dir") return context.checkpoint_dir;
    if (name == "attempt") return std::to_string(context.attempt_number());
    // data.input's file (absolute, so a task that changes directory still finds it) and dataset.
    if (name == "input" || name == "input_dataset") {
        if (context.input.empty()) return "";
        // A line or Parquet input is a whole file: no dataset.
        if (context.input.find(":/") == std::string::npos) {
            return name == "input" ? std::filesystem::absolute(context.input).string() : "";
        }
        const auto location = io::parse_dataset_location(context.input);
        return name == "input" ? std::filesystem::absolute(location.file).string() : location.dataset;
    }
    return std::nullopt;
}

std::vector<std::string> ExecKind::environment(const TaskContext& context, const Lookup& lookup,
                                               const std::vector<std::string>& group_env,
                                               const std::string& results_dir) const
{
    std::vector<std::string> own = group_env;
    own.push_back(fmt::format("SHARDRUN_TASK_ID={}", context.task_id));
    own.push_back(fmt::format("SHARDRUN_TASK_COUNT={}", context.task_count));
    own.push_back(fmt::format("SHARDRUN_RANK={}", context.rank));
    own.push_back(fmt::format("SHARDRUN_ATTEMPT={}", context.attempt_number()));
    own.push_back(fmt::format("SHARDRUN_TASK_DIR={}", context.task_dir));
    // Not made here (a folder per task costs an inode): the program makes it when it checkpoints.
    own.push_back(fmt::format("SHARDRUN_CHECKPOINT_DIR={}", context.checkpoint_dir));
    const auto channels = result_channels(results_dir);
    own.push_back("SHARDRUN_RESULT=" + channels.json);
    own.push_back("SHARDRUN_RESULT_DIR=" + channels.dir);
    own.push_back("SHARDRUN_RESULT_H5=" + channels.h5);
    own.push_back(fmt::format("{}={}", task_token_variable, task_token(context.task_id, context.attempt)));
    // data.input as the worker's request line gives it: shardrun.records() reads a line input's records.
    if (!context.input.empty()) own.push_back("SHARDRUN_INPUT=" + *exec_builtin_value(context, "input") +
                                              (context.input.find(":/") == std::string::npos ? "" : ":" + *exec_builtin_value(context, "input_dataset")));
    if (context.range) {
        own.push_back(fmt::format("SHARDRUN_RANGE_START={}", context.range->start));
        own.push_back(fmt::format("SHARDRUN_RANGE_END={}", context.range->end));
    }
    if (context.device.cuda) {
        own.push_back("CUDA_VISIBLE_DEVICES=" + context.device.visible_id);
        own.insert(own.end(), context.device.task_env.begin(), context.device.task_env.end());  // MPS (issue 26)
    }
    if (!context.device.cuda && context.device.hide_gpus) own.push_back("CUDA_VISIBLE_DEVICES=");
    for (const auto& [name, value] : context.params->entries()) {
        own.push_back(job::param_env_name(name) + "=" + job::param_text(value));
    }
    own.push_back("SHARDRUN_PARAMS=" + params_json(*context.params));
    own.push_back("SHARDRUN_RESULT_FIELDS=" + result_fields_json(spec_.results));
    for (auto& entry : thread_variables(context.cpu_threads, inherited_env_, spec_.env)) own.push_back(std::move(entry));
    for (const auto& [name, value] : spec_.env) own.push_back(name + "=" + job::expand_placeholders(value, lookup));
    return merged_env(std::move(own));
}

std::vector<std::string> ExecKind::merged_env(std::vector<std::string> own) const
{
    // exec.env and the task's own variables replace inherited ones of the same name. Built for
    // every task: a sorted list of names and one reserved vector, not a tree of nodes per task.
    std::vector<std::string_view> names;
    names.reserve(own.size());
    for (const auto& entry : own) names.push_back(std::string_view(entry).substr(0, entry.find('=')));
    std::sort(names.begin(), names.end());
    std::vector<std::string> env;
    env.reserve(inherited_env_.size() + own.size());
    for (const auto& entry : inherited_env_) {
        const auto name = std::string_view(entry).substr(0, entry.find('='));
        if (!std::binary_search(names.begin(), names.end(), name)) env.push_back(entry);
    }
    std::move(own.begin(), own.end(), std::back_inserter(env));
    return env;
}

WorkerLaunch ExecKind::worker_launch(const TaskContext& context, const std::vector<std::string>& group_env) const
{
    // Expanded once for the worker's whole life: what changes per task arrives on stdin.
    const auto lookup = [&context](std::string_view name) -> std::optional<std::string> {
        const auto& per_task = job::per_task_placeholders();
        if (std::find(per_task.begin(), per_task.end(), name) != per_task.end()) {
            throw std::invalid_argument(fmt::format("{{{}}} changes from task to task; with exec.mode: worker argv and "
                                                    "env are expanded once per rank, and each task's values come on "
                                                    "stdin", name));
        }
        if (auto value = exec_builtin_value(context, name)) return value;
        if (const auto* value = context.params->find(name)) return job::param_text(*value);
        return std::nullopt;
    };
    WorkerLaunch launch;
    for (const auto& arg : spec_.argv) launch.argv.push_back(job::expand_placeholders(arg, lookup));
    launch.argv[0] = from_job_dir(launch.argv[0]);
    launch.cwd = spec_.cwd;
    std::vector<std::string> own = group_env;
    own.push_back(fmt::format("SHARDRUN_TASK_COUNT={}", context.task_count));
    own.push_back(fmt::format("SHARDRUN_RANK={}", context.rank));
    own.push_back("SHARDRUN_WORKER=1");
    // Each task's params come on stdin; the declared dtypes are the same for the worker's whole life.
    own.push_back("SHARDRUN_RESULT_FIELDS=" + result_fields_json(spec_.results));
    // The orphan guard finds the worker and whatever it starts by this token when the rank dies.
    own.push_back(fmt::format("{}={}/worker", task_token_variable, rank_token()));
    if (context.device.cuda) {
        own.push_back("CUDA_VISIBLE_DEVICES=" + context.device.visible_id);
        own.insert(own.end(), context.device.task_env.begin(), context.device.task_env.end());  // MPS (issue 26)
    }
    // Python keeps print() to a file in an 8 KiB buffer: unbuffered, the log shows the worker's output
    // as it comes, and a ready line printed on stdout by mistake is seen (and answered with a hint) at once.
    const auto sets_unbuffered = [](std::string_view entry) { return entry.rfind("PYTHONUNBUFFERED=", 0) == 0; };
    if (std::none_of(inherited_env_.begin(), inherited_env_.end(), sets_unbuffered) &&
        std::none_of(spec_.env.begin(), spec_.env.end(), [](const auto& entry) { return entry.first == "PYTHONUNBUFFERED"; })) {
        own.push_back("PYTHONUNBUFFERED=1");
    }
    for (auto& entry : thread_variables(context.cpu_threads, inherited_env_, spec_.env)) own.push_back(std::move(entry));
    for (const auto& [name, value] : spec_.env) own.push_back(name + "=" + job::expand_placeholders(value, lookup));
    launch.env = merged_env(std::move(own));
    // One log per rank beside the task folders (<output>.tasks/), which a member's folder nests one deeper in.
    launch.log_path = process::worker_log_path(tasks_dir_of(context), context.rank);
    return launch;
}

}  // namespace shardrun::tasks
