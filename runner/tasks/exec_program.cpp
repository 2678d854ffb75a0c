// The exec kind's default mode: the user's program started once per task (and per group member).
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "io/layout/output_layout.hpp"
#include "runner/process/live_index.hpp"
#include "runner/process/process.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/process/results/result_files.hpp"
#include "runner/process/results/task_shapes.hpp"
#include "runner/process/task_folder.hpp"
#include "runner/job/argv_template.hpp"
#include "runner/tasks/exec_kind.hpp"
#include "runner/tasks/exec_kind_internal.hpp"

namespace shardrun::tasks {

using namespace process;

TaskOutcome ExecKind::run_program(const TaskContext& context, const std::vector<std::string>& group_env,
                                  const std::function<bool()>& peer_failed) const
{
    const auto lookup = [&context](std::string_view name) -> std::optional<std::string> {
        if (auto value = exec_builtin_value(context, name)) return value;
        if (const auto* value = context.params->find(name)) return job::param_text(*value);
        return std::nullopt;
    };
    ProcessSpec process;
    try {
        for (const auto& arg : spec_.argv) process.argv.push_back(job::expand_placeholders(arg, lookup));
    } catch (const std::invalid_argument& error) {
        return TaskOutcome::failure(2, fmt::format("exec.argv: {}", error.what()));
    }
    process.argv[0] = from_job_dir(process.argv[0]);
    process.cwd = spec_.cwd;
    // The folder exists before the program starts only when the program is told to write into it
    // ({task_dir}, or results kept there); otherwise only what is kept creates it.
    bool fresh = false;
    if (auto problem = task_dir_before_start_ ? prepare_task_dir(context.task_dir, &fresh) : clear_stale_outputs(context.task_dir);
        !problem.empty()) {
        return TaskOutcome::failure(1, std::move(problem));
    }
    // A slot's scratch stdout, stderr and result folder: no new file per task that writes nothing.
    OutputLease output(outputs_, outputs_.acquire(tasks_dir_of(context), context.host));
    const auto channels = result_channels(results_in_slot_ ? output->result_dir() : context.task_dir);
    try {
        process.env = environment(context, lookup, group_env, channels.dir);
    } catch (const std::invalid_argument& error) {
        return TaskOutcome::failure(2, fmt::format("exec.argv: {}", error.what()));
    }
    // An earlier task's or attempt's result files; a task folder made just now holds none.
    if (!spec_.results.empty() && (results_in_slot_ || !fresh)) remove_result_files(channels, spec_.results);
    process.stdout_fd = output->stdout_fd();
    process.stderr_fd = output->stderr_fd();
    process.timeout_seconds = timeout_seconds_;
    process.grace_seconds = grace_seconds_;
    process.token = task_token(context.task_id, context.attempt);
    const int attempt = context.attempt_number();
    // `shardrun logs` finds the running task's live files by its id through this index.
    RunningMark live(output->index(), {context.task_id, context.group.rank, output->scratch_path(0),
                                       output->scratch_path(1), attempt, context.host});
    const auto ended = run_process(process, [&] { return (context.stop && context.stop->load()) || peer_failed(); });
    // The last line the program wrote to stderr usually says why it failed: the summary shows it.
    const auto tail = ended.started && ended.exit_code != 0 ? output->stderr_tail() : std::string();
    const auto kept = output->keep(context.task_dir, attempt);
    live.end();  // after keep(): a reader that finds no index finds the output kept
    // What a failed task wrote as results goes to its folder beside its stdout and stderr, for
    // the user to look at; best effort, the task has failed either way.
    const auto keep_results = [&] {
        if (results_in_slot_) output->keep_results(context.task_dir, result_file_names(spec_.results));
    };
    if (!ended.started) {
        return TaskOutcome::failure(ended.exit_code, fmt::format("cannot run '{}': {}", process.argv[0],
                                                    ended.spawn_error == ENOENT ? "command not found"
                                                                                : std::strerror(ended.spawn_error)));
    }
    const auto why = [&tail] { return tail.empty() ? std::string() : ": " + tail; };
    if (ended.timed_out || ended.signal != 0 || ended.exit_code != 0) keep_results();
    // What the kernel accounted to the program, whatever became of the task.
    const auto measured = [&ended](TaskOutcome outcome) {
        outcome.cpu_time = ended.cpu_seconds;
        outcome.mem_peak = ended.peak_rss_bytes;
        return outcome;
    };
    if (ended.timed_out) return measured(TaskOutcome::failure(ended.exit_code, fmt::format("timed out after {} s{}", timeout_seconds_, why())));
    if (ended.signal != 0) return measured(TaskOutcome::failure(ended.exit_code, fmt::format("killed by signal {}{}", ended.signal, why())));
    if (ended.exit_code != 0) return measured(TaskOutcome::failure(ended.exit_code, fmt::format("exited with status {}{}", ended.exit_code, why())));
    if (!kept.empty()) return measured(TaskOutcome::failure(1, kept));
    auto outcome = measured(TaskOutcome{});
    if (spec_.results.empty()) return outcome;
    const auto rows = context.range ? std::optional<std::size_t>(context.range->end - context.range->start) : std::nullopt;
    const auto shapes = task_shapes(spec_.results, rows, context.params);
    std::vector<std::string> read;
    auto values = read_task_results(channels, spec_.results, shapes, &read);
    if (auto* reason = std::get_if<std::string>(&values)) {
        keep_results();
        return measured(TaskOutcome::failure(0, with_length_note(*reason, shapes)));
    }
    outcome.values = std::move(std::get<io::TaskValues>(values));
    // An earlier attempt that failed kept its result files in the folder: stale now (best effort).
    if (results_in_slot_ && attempt > 1) process::remove_kept_results(context.task_dir, result_file_names(spec_.results));
    // The values are in memory now; a rank that dies before committing them runs the task again.
    if (!spec_.keep_files) remove_files(read);
    return outcome;
}

}  // namespace shardrun::tasks
