#include "runner/tasks/exec_kind.hpp"
#include "runner/tasks/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "io/layout/output_layout.hpp"
#include "runner/process/error_line.hpp"
#include "runner/process/group_rendezvous.hpp"
#include "runner/process/results/result_files.hpp"
#include "runner/process/results/task_shapes.hpp"
#include "runner/job/param_shapes.hpp"
#include "runner/tasks/chunk_split.hpp"
#include "runner/tasks/exec_kind_internal.hpp"

extern char** environ;

namespace shardrun::tasks {

// Process supervision and result decoding are runner/process/'s; this file and its two siblings
// (exec_program.cpp, exec_environment.cpp) only compose them.
using namespace process;
namespace {

// Whether the program is told where its task folder is (so it must exist before it starts).
bool names_task_dir(const job::ExecSpec& spec)
{
    const auto names = [](const std::string& text) { return text.find("{task_dir}") != std::string::npos; };
    return std::any_of(spec.argv.begin(), spec.argv.end(), names) ||
           std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& entry) { return names(entry.second); });
}

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
        const auto member_stderr = (io::layout::member_dir(context.task_dir, failed_peer) / "stderr").string();
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
    // A chunk with failed rows keeps the other rows' values: they get their lengths too.
    if (!outcome.values.empty() && job::has_param_shapes(spec_.results)) {
        append_lengths(outcome.values, task_shapes(spec_.results, std::nullopt, context.params));
    }
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
    double startup_seconds = 0;  // every worker start the task waited for, the splitting's included
    const RangeRun send = [&](const TaskContext& part) {
        remove_result_files(channels, spec_.results);
        auto answer = pool_->run_task(part, answer_place(part, channels.dir), launch, peer_failed);
        startup_seconds += answer.startup_seconds;
        return answer;
    };
    auto outcome = send(context);
    if (may_split(outcome, context, spec_.results)) {
        // One poison row must not fail its whole chunk: its halves run again until the row is found.
        const auto began = outcome.began;
        outcome = split_failed_chunk(context, spec_.results, outcome, send);
        outcome.began = began;
    }
    outcome.startup_seconds = startup_seconds;
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
