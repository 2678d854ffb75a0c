// The sections that say what the tasks are and where their results go: name, task, params, sweep, data, output.
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
        // Where the kind's checks (runner/run/param_checks.cpp) and the later checks point.
        sites.values[path] = context.where(entry.second, path);
        sites.keys[path] = context.where(entry.first, path);
        job.marks.values[path] = entry.second.Mark();
    }
}

void read_sweep(const YAML::Node& root, const YamlContext& context, const std::string& job_dir, JobRead& job)
{
    SweepSources sources;
    job.spec.sweep = parse_sweep(root["sweep"], context, job_dir.empty() ? "." : job_dir, &sources);
    job.marks.values.insert(sources.marks.begin(), sources.marks.end());
    job.points_file = std::move(sources.points_file);
}

void read_data(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["data"];
    auto& data = job.spec.data;
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "data", "must be {items: N, chunk: c} or {input: file.h5:/dataset, chunk: c}");
    context.check_keys(node, "data", {"items", "chunk", "input"});
    data.present = true;
    if (node["items"] && node["input"]) context.fail(node, "data", "give items or input, not both");
    if (!node["items"] && !node["input"]) context.fail(node, "data", "missing items (or input)");
    if (node["items"]) {
        data.items = static_cast<std::uint64_t>(read_integer(node["items"], context, "data.items", 1));
        job.marks.values["data.items"] = node["items"].Mark();
    }
    if (node["input"]) {
        data.input = read_string(node["input"], context, "data.input");
        if (data.input.find(":/") == std::string::npos) {
            context.fail(node["input"], "data.input", "must be file.h5:/dataset");
        }
        job.spec.sites.values["data.input"] = context.where(node["input"], "data.input");
    }
    if (!node["chunk"]) context.fail(node, "data.chunk", "missing; give the number of items per task");
    data.chunk = static_cast<std::uint64_t>(read_integer(node["chunk"], context, "data.chunk", 1));
    job.spec.sites.values["data.chunk"] = context.where(node["chunk"], "data.chunk");
}

void read_output(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["output"];
    auto& output = job.spec.output;
    output.path = "results/" + job.spec.name + ".h5";
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "output", "must be {path: results/x.h5, layout: shards|single}");
    context.check_keys(node, "output", {"path", "layout"});
    if (node["path"]) output.path = read_string(node["path"], context, "output.path");
    if (node["layout"]) output.layout = read_choice(node["layout"], context, "output.layout", {"shards", "single"});
}

}  // namespace shardrun::job
