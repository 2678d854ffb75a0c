#include "runner/tasks/exec_kind.hpp"
#include "runner/tasks/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <set>

#include "io/input/dataset_reader.hpp"
#include "runner/exec/error_line.hpp"
#include "runner/exec/group_rendezvous.hpp"
#include "runner/exec/live_index.hpp"
#include "runner/exec/process.hpp"
#include "runner/exec/process_tree.hpp"
#include "runner/exec/results/result_files.hpp"
#include "runner/exec/results/result_json.hpp"
#include "runner/exec/results/task_shapes.hpp"
#include "runner/exec/task_folder.hpp"
#include "runner/exec/task_output.hpp"
#include "runner/exec/typed_env.hpp"
#include "runner/job/argv_template.hpp"
#include "runner/job/param_shapes.hpp"

extern char** environ;

namespace shardrun::tasks {

// Process supervision and result decoding are runner/exec/'s; this file only composes them.
using namespace exec;
namespace {

std::optional<std::string> builtin_value(const TaskContext& context, std::string_view name)
{
    if (name == "task_id") return std::to_string(context.task_id);
    if (name == "task_count") return std::to_string(context.task_count);
    if (name == "start") return context.range ? std::to_string(context.range->start) : "";
    if (name == "end") return context.range ? std::to_string(context.range->end) : "";
    if (name == "rank") return std::to_string(context.rank);
    if (name == "device") return context.device.label();
    if (name == "task_dir") return context.task_dir;
    if (name == "attempt") return std::to_string(context.attempt);
    // data.input's file (absolute, so a task that changes directory still finds it) and dataset.
    if (name == "input" || name == "input_dataset") {
        if (context.input.empty()) return "";
        const auto location = io::parse_dataset_location(context.input);
        return name == "input" ? std::filesystem::absolute(location.file).string() : location.dataset;
    }
    return std::nullopt;
}

// Whether the program is told where its task folder is (so it must exist before it starts).
bool names_task_dir(const job::ExecSpec& spec)
{
    const auto names = [](const std::string& text) { return text.find("{task_dir}") != std::string::npos; };
    return std::any_of(spec.argv.begin(), spec.argv.end(), names) ||
           std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& entry) { return names(entry.second); });
}

// <output>.tasks: a group member's folder is one level deeper (<id>/member<k>).
std::string tasks_dir_of(const TaskContext& context)
{
    auto dir = std::filesystem::path(context.task_dir).parent_path();
    if (context.group.rank > 0) dir = dir.parent_path();
    return dir.string();
}

// Gives the slot back to its pool however the task ends.
class OutputLease {
public:
    OutputLease(TaskOutputPool& pool, std::unique_ptr<TaskOutput> output) : pool_(pool), output_(std::move(output)) {}
    ~OutputLease() { pool_.release(std::move(output_)); }
    OutputLease(const OutputLease&) = delete;
    OutputLease& operator=(const OutputLease&) = delete;
    TaskOutput* operator->() const noexcept { return output_.get(); }

private:
    TaskOutputPool& pool_;
    std::unique_ptr<TaskOutput> output_;
};

}  // namespace

ExecKind::ExecKind(job::ExecSpec spec, double timeout_seconds, double grace_seconds)
    : spec_(std::move(spec)), timeout_seconds_(timeout_seconds), grace_seconds_(grace_seconds),
      task_dir_before_start_(names_task_dir(spec_) || (!spec_.results.empty() && spec_.keep_files)),
      results_in_slot_(!spec_.results.empty() && !spec_.keep_files)
{
    if (spec_.mode == job::ExecSpec::Mode::worker) {
        pool_ = std::make_unique<WorkerPool>(WorkerSettings{spec_.results, timeout_seconds_, grace_seconds_,
                                                            spec_.worker_start_timeout_seconds, spec_.worker_restarts});
    }
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        // The per-task variables are set fresh for every task; never inherit stale ones.
        if (std::strncmp(*entry, "SHARDRUN_", 9) != 0 && std::strncmp(*entry, "CUDA_VISIBLE_DEVICES=", 21) != 0) {
            inherited_env_.emplace_back(*entry);
        }
    }
}

void ExecKind::validate(const job::ParamMap& /*params*/, const JobView& /*job*/) const {}

std::vector<std::string> ExecKind::environment(const TaskContext& context, const Lookup& lookup,
                                               const std::vector<std::string>& group_env,
                                               const std::string& results_dir) const
{
    std::vector<std::string> own = group_env;
    own.push_back(fmt::format("SHARDRUN_TASK_ID={}", context.task_id));
    own.push_back(fmt::format("SHARDRUN_TASK_COUNT={}", context.task_count));
    own.push_back(fmt::format("SHARDRUN_RANK={}", context.rank));
    own.push_back(fmt::format("SHARDRUN_ATTEMPT={}", context.attempt));
    own.push_back(fmt::format("SHARDRUN_TASK_DIR={}", context.task_dir));
    const auto channels = result_channels(results_dir);
    own.push_back("SHARDRUN_RESULT=" + channels.json);
    own.push_back("SHARDRUN_RESULT_DIR=" + channels.dir);
    own.push_back("SHARDRUN_RESULT_H5=" + channels.h5);
    own.push_back(fmt::format("{}={}", task_token_variable, task_token(context.task_id, context.attempt)));
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
    for (const auto& [name, value] : spec_.env) own.push_back(name + "=" + job::expand_placeholders(value, lookup));
    return merged_env(std::move(own));
}

std::vector<std::string> ExecKind::merged_env(std::vector<std::string> own) const
{
    // exec.env and the task's own variables replace inherited ones of the same name.
    std::set<std::string_view> names;
    for (const auto& entry : own) names.insert(std::string_view(entry).substr(0, entry.find('=')));
    std::vector<std::string> env;
    for (const auto& entry : inherited_env_) {
        if (names.count(std::string_view(entry).substr(0, entry.find('='))) == 0) env.push_back(entry);
    }
    env.insert(env.end(), own.begin(), own.end());
    return env;
}

TaskOutcome ExecKind::run(const TaskContext& context) const
{
    const auto& group = context.group;
    const auto meet = agree_rendezvous(group.comm, context.host);
    const std::vector<std::string> group_env{
        fmt::format("RANK={}", group.rank), fmt::format("LOCAL_RANK={}", group.local_rank),
        fmt::format("WORLD_SIZE={}", group.size), fmt::format("LOCAL_WORLD_SIZE={}", group.local_size),
        "MASTER_ADDR=" + meet.host, fmt::format("MASTER_PORT={}", meet.port),
        fmt::format("SHARDRUN_GROUP_RANK={}", group.rank), fmt::format("SHARDRUN_GROUP_SIZE={}", group.size)};
    const auto run_member = [&](const std::function<bool()>& peer_failed) {
        if (!pool_) return run_program(context, group_env, peer_failed);
        return run_worker_task(context, group_env, peer_failed);
    };
    if (group.comm == nullptr || group.size == 1) return with_lengths(run_member([] { return false; }), context);
    PeerExits exits(*group.comm);
    int failed_peer = -1;
    auto outcome = run_member([&] {
        failed_peer = exits.failed_peer();
        return failed_peer >= 0;
    });
    exits.finish(outcome.status == io::TaskStatus::ok ? 0 : outcome.exit_code != 0 ? outcome.exit_code : 1);
    if (outcome.status != io::TaskStatus::ok && failed_peer >= 0) {
        // The member has kept its output before it sent its exit code: its own reason is on disk.
        const auto member_stderr = fmt::format("{}/member{}/stderr", context.task_dir, failed_peer);
        const auto line = group.rank == 0 ? first_error_line(member_stderr) : std::string();
        outcome.message = fmt::format("stopped because group member {} failed (exit code {}){}", failed_peer,
                                      exits.codes()[static_cast<size_t>(failed_peer)],
                                      line.empty() ? "" : fmt::format(": {} (its stderr: {})", line, member_stderr));
    }
    return with_lengths(std::move(outcome), context);
}

TaskOutcome ExecKind::with_lengths(TaskOutcome outcome, const TaskContext& context) const
{
    // The <field>_length columns (job/param_shapes.hpp) come after the declared fields.
    if (outcome.status == io::TaskStatus::ok && !outcome.values.empty() && job::has_param_shapes(spec_.results)) {
        append_lengths(outcome.values, task_shapes(spec_.results, std::nullopt, context.params));
    }
    return outcome;
}

TaskOutcome ExecKind::run_program(const TaskContext& context, const std::vector<std::string>& group_env,
                                  const std::function<bool()>& peer_failed) const
{
    const auto lookup = [&context](std::string_view name) -> std::optional<std::string> {
        if (auto value = builtin_value(context, name)) return value;
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
    const int attempt = context.attempt_base + context.attempt;
    // `shardrun logs` finds the running task's live files by its id through this index.
    LiveIndex live(live_index_path(tasks_dir_of(context), context.task_id, context.group.rank),
                   {output->scratch_path(0), output->scratch_path(1), attempt, context.host});
    const auto ended = run_process(process, [&] { return (context.stop && context.stop->load()) || peer_failed(); });
    // The last line the program wrote to stderr usually says why it failed: the summary shows it.
    const auto tail = ended.started && ended.exit_code != 0 ? output->stderr_tail() : std::string();
    const auto kept = output->keep(context.task_dir, attempt);
    live.remove();  // after keep(): a reader that finds no index finds the output kept
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
    if (ended.timed_out) return TaskOutcome::failure(ended.exit_code, fmt::format("timed out after {} s{}", timeout_seconds_, why()));
    if (ended.signal != 0) return TaskOutcome::failure(ended.exit_code, fmt::format("killed by signal {}{}", ended.signal, why()));
    if (ended.exit_code != 0) return TaskOutcome::failure(ended.exit_code, fmt::format("exited with status {}{}", ended.exit_code, why()));
    if (!kept.empty()) return TaskOutcome::failure(1, kept);
    TaskOutcome outcome;
    if (spec_.results.empty()) return outcome;
    const auto rows = context.range ? std::optional<std::size_t>(context.range->end - context.range->start) : std::nullopt;
    const auto shapes = task_shapes(spec_.results, rows, context.params);
    std::vector<std::string> read;
    auto values = read_task_results(channels, spec_.results, shapes, &read);
    if (auto* reason = std::get_if<std::string>(&values)) {
        keep_results();
        return TaskOutcome::failure(0, with_length_note(*reason, shapes));
    }
    outcome.values = std::move(std::get<io::TaskValues>(values));
    // The values are in memory now; a rank that dies before committing them runs the task again.
    if (!spec_.keep_files) remove_files(read);
    return outcome;
}

TaskOutcome ExecKind::run_worker_task(const TaskContext& context, const std::vector<std::string>& group_env,
                                      const std::function<bool()>& peer_failed) const
{
    const auto launch = [&] { return worker_launch(context, group_env); };
    if (spec_.results.empty()) return pool_->run_task(context, answer_place(context, {}), launch, peer_failed);
    // The slot's result folder (made once, reused by its next task) is where the answer may leave
    // <field>.npy; what an earlier task or attempt left there goes first.
    OutputLease output(outputs_, outputs_.acquire(tasks_dir_of(context), context.host));
    const auto channels = result_channels(output->result_dir());
    remove_result_files(channels, spec_.results);
    auto outcome = pool_->run_task(context, answer_place(context, channels.dir), launch, peer_failed);
    // A failed task's files go to its folder for the user to look at, as do all with exec.keep_files.
    if (outcome.status != io::TaskStatus::ok || spec_.keep_files) {
        output->keep_results(context.task_dir, result_file_names(spec_.results));
    } else {
        remove_result_files(channels, spec_.results);
    }
    return outcome;
}

std::string ExecKind::from_job_dir(const std::string& program) const
{
    // A relative path with a '/' is the job file's, wherever shardrun was started; a bare name is PATH's.
    const bool relative_path = program.find('/') != std::string::npos && program.front() != '/';
    return relative_path && !spec_.base_dir.empty() ? spec_.base_dir + "/" + program : program;
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
        if (auto value = builtin_value(context, name)) return value;
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
    for (const auto& [name, value] : spec_.env) own.push_back(name + "=" + job::expand_placeholders(value, lookup));
    launch.env = merged_env(std::move(own));
    // One log per rank beside the task folders (<output>.tasks/), which a member's folder nests one deeper in.
    auto tasks_dir = std::filesystem::path(context.task_dir).parent_path();
    if (context.group.rank > 0) tasks_dir = tasks_dir.parent_path();
    launch.log_path = (tasks_dir / fmt::format("worker-rank{}.log", context.rank)).string();
    return launch;
}

TaskKindEntry exec_kind_entry()
{
    // Open parameters: exec passes whatever names the job gives to the user's program.
    static const ParamTable parameters{{}, true};
    return {"exec", "the user's program, once per task (or one worker per rank); any parameter names, given as "
                    "{name} and SHARDRUN_PARAM_<NAME>",
            &parameters, [](const job::JobSpec& spec) {
                return std::make_unique<ExecKind>(spec.exec, spec.timeout_seconds, spec.timeout_grace_seconds);
            }};
}

}  // namespace shardrun::tasks
