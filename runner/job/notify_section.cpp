// `notify:` — a command and/or a URL told of the run's end (runner/run/report/notify.hpp sends it).
#include <fmt/format.h>

#include <algorithm>

#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> notify_endings{"end", "fail", "drain"};

std::vector<std::string> read_endings(const YAML::Node& node, const YamlContext& context)
{
    // One word is a list of one: `on: fail`.
    if (node.IsScalar()) return {read_choice(node, context, "notify.on", notify_endings)};
    if (!node.IsSequence() || node.size() == 0) {
        context.fail(node, "notify.on", fmt::format("must be a list of {}, e.g. [fail, drain]", fmt::join(notify_endings, ", ")));
    }
    std::vector<std::string> endings;
    for (const auto& item : node) {
        auto word = read_choice(item, context, "notify.on", notify_endings);
        if (std::find(endings.begin(), endings.end(), word) == endings.end()) endings.push_back(std::move(word));
    }
    return endings;
}

}  // namespace

void read_notify(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["notify"];
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "notify", "must be a mapping: {command: \"...\", url: https://..., on: [end, fail, drain]}");
    context.check_keys(node, "notify", job_field_names("notify"));
    auto& notify = job.spec.notify;
    if (node["command"]) notify.command = read_string(node["command"], context, "notify.command");
    if (node["url"]) {
        notify.url = read_string(node["url"], context, "notify.url");
        if (!notify.url.starts_with("http://") && !notify.url.starts_with("https://")) {
            context.fail(node["url"], "notify.url", fmt::format("'{}' is not an http:// or https:// URL", notify.url));
        }
    }
    if (node["on"]) notify.on = read_endings(node["on"], context);
    if (node["timeout"]) {
        notify.timeout_seconds = read_duration(node["timeout"], context, "notify.timeout");
        if (notify.timeout_seconds <= 0) context.fail(node["timeout"], "notify.timeout", "must be above 0, e.g. 30s");
    }
    // Last: a misspelt key or a wrong word is named before the section as a whole.
    if (!notify.active()) context.fail(node, "notify", "needs a command, a url, or both");
}

}  // namespace shardrun::job
