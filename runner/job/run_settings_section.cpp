// How tasks are run and where they write: schedule, device, GPUs and slots per rank, retries, the
// timeouts, max_failures and fail_fast (how many failed tasks a run accepts), output.
#include <fmt/format.h>

#include "runner/errors.hpp"
#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/section_reads.hpp"
#include "runner/job/url_typos.hpp"

namespace shardrun::job {
namespace {

/** output.path's default from the table, "results/<name>.h5", with the job's name in it. */
std::string default_output_path(const std::string& name)
{
    std::string path(field_default<std::string_view>("output.path"));
    return path.replace(path.find("<name>"), std::string_view("<name>").size(), name);
}

ScheduleSpec read_schedule(const YAML::Node& node, const YamlContext& context)
{
    ScheduleSpec schedule;
    if (node.IsMap()) context.check_keys(node, "schedule", job_field_names("schedule"));
    // A mapping without kind ({} or {min_claim: 2}) keeps the default kind; reading the missing
    // node["kind"] would throw yaml-cpp's InvalidNode (exit 1, no file or field).
    if (!node.IsMap() || node["kind"]) {
        const auto kind_node = node.IsMap() ? node["kind"] : node;
        const auto kind = read_choice(kind_node, context, node.IsMap() ? "schedule.kind" : "schedule",
                                      job_field_choices("schedule.kind"));
        schedule.kind = schedule_kind_named(kind);
    }
    if (node.IsMap() && node["min_claim"]) {
        schedule.min_claim = read_integer(node["min_claim"], context, "schedule.min_claim");
    }
    if (node.IsMap() && node["max_claim"]) {
        schedule.max_claim = read_integer(node["max_claim"], context, "schedule.max_claim");
        if (schedule.max_claim < schedule.min_claim) {
            context.fail(node["max_claim"], "schedule.max_claim",
                         fmt::format("{} is below min_claim {}; max_claim must be at least min_claim", schedule.max_claim,
                                     schedule.min_claim));
        }
    }
    return schedule;
}

}  // namespace

void read_execution(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& spec = job.spec;
    if (root["schedule"]) spec.schedule = read_schedule(root["schedule"], context);
    if (root["device"]) {
        spec.device = device_named(read_choice(root["device"], context, "device"));
    }
    if (root["gpus_per_task"]) spec.gpus_per_task = read_int(root["gpus_per_task"], context, "gpus_per_task");
    if (root["slots_per_rank"]) {
        spec.slots_per_rank = read_int(root["slots_per_rank"], context, "slots_per_rank");
        job.marks.values["slots_per_rank"] = root["slots_per_rank"].Mark();
    }
    if (root["gpus_per_rank"]) spec.gpus_per_rank = read_int(root["gpus_per_rank"], context, "gpus_per_rank");
    if (spec.gpus_per_rank > 1 && spec.device == DevicePreference::cpu) {
        // device: cpu keeps every rank off the GPU: the GPUs asked for would sit idle, unseen.
        context.fail(root["gpus_per_rank"], "gpus_per_rank", "asks for GPUs, but device: cpu keeps every rank on the CPU; "
                                                             "use device: auto or cuda, or leave gpus_per_rank out");
    }
    if (spec.gpus_per_task > 1 && spec.slots_per_rank > 1) {
        // A group runs one task at a time on all its members; parallel slots would interleave its collectives.
        context.fail(root["slots_per_rank"] ? root["slots_per_rank"] : root["gpus_per_task"], "slots_per_rank",
                     "must be 1 when gpus_per_task is above 1 (a rank group runs one task at a time)");
    }
    if (root["retries"]) spec.retries = read_int(root["retries"], context, "retries");
    if (root["timeout"]) spec.timeout_seconds = read_duration(root["timeout"], context, "timeout");
    if (root["timeout_grace"]) spec.timeout_grace_seconds = read_duration(root["timeout_grace"], context, "timeout_grace");
    if (root["collective_timeout"]) {
        spec.collective_timeout_seconds = read_duration(root["collective_timeout"], context, "collective_timeout");
    }
    if (root["rank_timeout"]) spec.rank_timeout_seconds = read_duration(root["rank_timeout"], context, "rank_timeout");
    if (root["drain_timeout"]) spec.drain_timeout_seconds = read_duration(root["drain_timeout"], context, "drain_timeout");
}

void read_failure_fields(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& spec = job.spec;
    if (const auto node = root["max_failures"]) {
        spec.max_failures = read_integer(node, context, "max_failures");
    }
    if (const auto node = root["fail_fast"]) {
        bool on = false;
        if (node.IsScalar() && YAML::convert<bool>::decode(node, on)) {
            spec.fail_fast = on ? default_fail_fast : 0;
            return;
        }
        std::int64_t tasks = 0;
        if (!node.IsScalar() || !YAML::convert<std::int64_t>::decode(node, tasks) || tasks < 1) {
            context.fail(node, "fail_fast", "must be true, false or a number of tasks (at least 1): stop when the first "
                                            "that many tasks all failed with one exit code");
        }
        spec.fail_fast = tasks;
    }
}

void read_output(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["output"];
    auto& output = job.spec.output;
    output.path = default_output_path(job.spec.name);
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "output", "must be {path: results/x.h5, layout: shards|single}");
    context.check_keys(node, "output", job_field_names("output"));
    if (node["path"]) output.path = read_string(node["path"], context, "output.path");
    if (node["layout"]) output.layout = read_choice(node["layout"], context, "output.layout");
    if (const auto typo = storage::misspelled_url(output.path)) context.fail(node["path"], "output.path", *typo);
    if (!storage::is_remote(output.path)) return;
    try {
        storage::parse_remote(output.path);
    } catch (const UsageError& error) {
        context.fail(node["path"], "output.path", error.what());
    }
    // Layout single is one file written through MPI-IO by every rank: it needs a shared file system.
    if (output.layout == "single") {
        context.fail(node["layout"], "output.layout",
                     "single needs a shared file system and cannot write to object storage; use shards with an "
                     "s3://, gs:// or rclone:// output.path");
    }
}

}  // namespace shardrun::job
