// The sections that name the job and its tasks: name, task, params.
#include <fmt/format.h>

#include <filesystem>

#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {
void read_identity(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                   JobRead& job)
{
    auto& spec = job.spec;
    spec.name = root["name"] ? read_string(root["name"], context, "name")
                             : std::filesystem::path(context.file()).stem().string();
    if (spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
        std::string::npos) {
        context.fail(root["name"], "name", "may contain only letters, digits, '.', '_' and '-'");
    }
    if (!root["task"]) context.fail(root, "task", fmt::format("missing; allowed: {}", fmt::join(known_tasks, ", ")));
    spec.task = read_choice(root["task"], context, "task", known_tasks);
    spec.sites.values["task"] = context.where(root["task"], "task");
}

void read_params(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["params"];
    auto& sites = job.spec.sites;
    sites.values["params"] = node ? context.where(node, "params") : sites.values["task"];
    job.marks.values["params"] = mark_of(node);
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "params", "must be a mapping of names to scalar values");
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        const auto path = "params." + key;
        if (!entry.second.IsScalar()) context.fail(entry.second, path, "must be a scalar value");
        job.spec.params.set(key, scalar_value(entry.second));
        // Where the kind's checks (runner/run/setup/param_checks.cpp) and the later checks point.
        sites.values[path] = context.where(entry.second, path);
        sites.keys[path] = context.where(entry.first, path);
        job.marks.values[path] = entry.second.Mark();
    }
}

}  // namespace shardrun::job
