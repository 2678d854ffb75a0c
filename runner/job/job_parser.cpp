#include "runner/job/job_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "runner/errors.hpp"
#include "runner/job/argv_template.hpp"
#include "runner/job/exec_results.hpp"
#include "runner/job/job_paths.hpp"
#include "runner/job/failure_fields.hpp"
#include "runner/job/gpu_fields.hpp"
#include "runner/job/gpu_sharing_section.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/param_shapes.hpp"
#include "runner/job/resolved_json.hpp"
#include "runner/job/yaml_checks.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> top_level_keys = {
    "name", "task", "params", "sweep", "data", "schedule", "device", "gpus_per_task", "gpus_per_rank", "slots_per_rank", "collective_timeout", "rank_timeout",
    "retries", "timeout", "timeout_grace", "drain_timeout", "telemetry_interval", "max_failures", "fail_fast", "output", "exec",
    "auto_device", "gpu_fault_limit", "tasks_per_gpu", "gpu_sharing", "gpu_threads", "gpu_memory"};

std::vector<std::string> split_path(const std::string& path)
{
    std::vector<std::string> parts;
    std::stringstream stream(path);
    std::string part;
    while (std::getline(stream, part, '.')) parts.push_back(part);
    return parts;
}

void set_path(YAML::Node node, const std::vector<std::string>& parts, size_t i, const YAML::Node& value)
{
    if (i + 1 == parts.size()) {
        node[parts[i]] = value;
        return;
    }
    if (!node[parts[i]] || !node[parts[i]].IsMap()) node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    set_path(node[parts[i]], parts, i + 1, value);
}

std::string apply_override(YAML::Node& root, const std::string& assignment)
{
    const auto equals = assignment.find('=');
    const auto key = assignment.substr(0, equals);
    if (equals == std::string::npos || key.empty() || key.front() == '.' || key.back() == '.') {
        SHARDRUN_THROW(UsageError, fmt::format("--set '{}': expected key.path=value", assignment));
    }
    YAML::Node value;
    const auto text = assignment.substr(equals + 1);
    try {
        value = YAML::Load(text);
    } catch (const YAML::Exception&) {
        value = YAML::Node(text);
    }
    if (unclosed_quote(value, text)) {
        SHARDRUN_THROW(UsageError, fmt::format("--set {}: the value opens a quote that is never closed; close it (and quote the "
                                               "whole --set argument for the shell)",
                                               key));
    }
    set_path(root, split_path(key), 0, value);
    return key;
}

// Counts a file's documents, up to `cap`, and notes where the second starts. Not YAML::LoadAll:
// yaml-cpp 0.7 yields empty documents forever after some malformed input (a stray ',' after a
// top-level flow mapping), so LoadAll never returns (found by tests/fuzz).
class DocumentCounter final : public YAML::EventHandler {
public:
    int documents = 0;
    YAML::Mark second = YAML::Mark::null_mark();

    void OnDocumentStart(const YAML::Mark& mark) override
    {
        if (++documents == 2) second = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

YAML::Node parse_yaml(const std::string& file, const std::string& text)
{
    try {
        constexpr int cap = 16;
        DocumentCounter counter;
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        while (counter.documents < cap && parser.HandleNextDocument(counter)) {
        }
        if (counter.documents > 1) {
            // Point at the `---` that starts the second document, the line to delete.
            int line = counter.second.line, current = 0;
            std::istringstream lines(text);
            for (std::string row; std::getline(lines, row) && current < counter.second.line; ++current) {
                if (row.rfind("---", 0) == 0) line = current;
            }
            SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:1: the job file holds {}{} YAML documents (separated by ---); keep one",
                                                     file, line + 1, counter.documents, counter.documents == cap ? " or more" : ""));
        }
        auto root = counter.documents == 0 ? YAML::Node() : YAML::Load(text);
        if (const auto open = unclosed_quote(root, text)) {
            SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:{}: YAML syntax error: this quoted string is never closed, so it runs "
                                                     "to the end of the file; add its closing quote",
                                                     file, open->line + 1, open->column + 1));
        }
        if (!root.IsDefined() || root.IsNull()) return YAML::Node(YAML::NodeType::Map);
        if (!root.IsMap()) SHARDRUN_THROW(JobFileError, fmt::format("{}:1:1: the job file must be a YAML mapping", file));
        return root;
    } catch (const YAML::ParserException& error) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:{}: YAML syntax error: {}", file, error.mark.line + 1,
                                                 error.mark.column + 1, one_line(error.msg)));
    }
}

// `per_task`: the names a worker cannot use, as it expands argv and env once per rank.
void check_template(const YAML::Node& node, const YamlContext& context, const std::string& path,
                    const std::set<std::string>& known, const std::set<std::string>& per_task)
{
    try {
        for (const auto& name : placeholders_in(node.Scalar())) {
            if (known.count(name) == 0) {
                context.fail(node, path,
                             fmt::format("{{{}}} names no parameter; known: {} (write {{{{ and }}}} for literal braces)",
                                         name, fmt::join(known, ", ")));
            }
            if (per_task.count(name) != 0) {
                context.fail(node, path,
                             fmt::format("{{{}}} changes from task to task; with exec.mode: worker argv and env are "
                                         "expanded once per rank, and each task's values come on stdin",
                                         name));
            }
        }
    } catch (const std::invalid_argument& error) {
        context.fail(node, path, fmt::format("{} (write {{{{ for a literal brace)", error.what()));
    }
}

// Every {name} in exec.argv and exec.env must be a parameter or a built-in placeholder, and one
// that stays the same across tasks when a worker runs them.
void check_exec_templates(const YAML::Node& exec, const YamlContext& context, const JobSpec& spec)
{
    if (spec.task != "exec") return;
    std::set<std::string> known(builtin_placeholders().begin(), builtin_placeholders().end());
    auto names = spec.sweep.names();
    for (const auto& [name, value] : spec.params.entries()) names.push_back(name);
    const auto& builtins = builtin_placeholders();
    for (const auto& name : names) {
        // `device` picks the task's device (runner/run/device_choice.hpp), and {device} then names it.
        const bool device = name == "device";
        if (!device && std::find(builtins.begin(), builtins.end(), name) != builtins.end()) {
            context.fail(exec, "exec", fmt::format("parameter '{}' has the name of a built-in placeholder; rename it "
                                                   "(built-ins: {})", name, fmt::join(builtin_placeholders(), ", ")));
        }
        known.insert(name);
    }
    std::set<std::string> per_task;
    if (spec.exec.mode == ExecSpec::Mode::worker) {
        per_task.insert(per_task_placeholders().begin(), per_task_placeholders().end());
        for (const auto& name : spec.sweep.names()) per_task.insert(name);
    }
    for (size_t i = 0; i < exec["argv"].size(); ++i) {
        check_template(exec["argv"][i], context, fmt::format("exec.argv[{}]", i), known, per_task);
    }
    for (const auto& entry : exec["env"]) {
        check_template(entry.second, context, "exec.env." + entry.first.as<std::string>(), known, per_task);
    }
}

// A points file's contents are part of the job's identity for --resume, not just its name.
YAML::Node with_points_file_contents(const YAML::Node& root, const std::string& job_dir)
{
    const auto& name = root["sweep"] ? root["sweep"]["points_file"] : YAML::Node();
    if (!name || !name.IsScalar()) return root;
    auto resolved = YAML::Clone(root);
    std::filesystem::path file = name.Scalar();
    if (file.is_relative()) file = std::filesystem::path(job_dir.empty() ? "." : job_dir) / file;
    resolved["sweep"]["points_file"] = YAML::LoadFile(file.string());
    return resolved;
}

}  // namespace

JobSpec load_job(const std::string& file, const std::vector<std::string>& overrides,
                 const std::vector<std::string>& known_tasks, const std::string& job_dir)
{
    if (std::filesystem::is_directory(file)) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: cannot read the job file: it is a directory; give a YAML or JSON file",
                                                 file));
    }
    std::ifstream stream(file);
    if (!stream) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: cannot read the job file: {}", file,
                                                 std::filesystem::exists(file) ? "permission denied" : "no such file"));
    }
    std::stringstream text;
    text << stream.rdbuf();
    return parse_job(file, text.str(), overrides, known_tasks, job_dir);
}

JobSpec parse_job(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& known_tasks, const std::string& given_job_dir)
{
    auto root = parse_yaml(file, text);
    std::set<std::string> overridden;
    for (const auto& assignment : overrides) overridden.insert(apply_override(root, assignment));
    const YamlContext context(file, overridden);
    check_document(root, context);
    context.check_keys(root, "", top_level_keys);

    JobSpec spec;
    spec.file = file;
    spec.text = text;
    const auto job_dir = given_job_dir.empty() ? std::filesystem::path(file).parent_path().string() : given_job_dir;
    parse_identity(root, context, known_tasks, spec);
    spec.params = parse_params(root["params"], context);
    spec.sweep = parse_sweep(root["sweep"], context, job_dir.empty() ? "." : job_dir);
    spec.data = parse_data(root["data"], context);
    record_sites(root, context, spec);
    check_fixed_or_swept(spec);
    // Kinds whose result shape follows the chunk (blur, embed) read params.chunk.
    if (spec.data.present && !spec.params.contains("chunk")) {
        spec.params.set("chunk", static_cast<std::int64_t>(spec.data.chunk));
        spec.sites.values["params.chunk"] = spec.sites.value("data.chunk", file);
    }
    check_param_names(root, context, spec);
    if (spec.data.present && spec.data.input.empty()) {
        checked_task_count(spec.sweep.size(), true, spec.data.items, spec.data.chunk,
                           context.where(root["data"]["items"], "data.items") + ": data.items");
    }
    parse_execution(root, context, spec);
    parse_failure_fields(root, context, spec);
    spec.output = parse_output(root["output"], context, spec.name);
    spec.exec = parse_exec(root["exec"], context, spec.task);
    parse_gpu_fields(root, context, spec);
    parse_gpu_sharing(root, context, spec);
    check_exec_templates(root["exec"], context, spec);
    resolve_job_paths(root["exec"], context, job_dir_of(file, given_job_dir), spec);
    resolve_item_rows(root["exec"], context, spec);
    resolve_param_shapes(root["exec"], context, spec);
    spec.resolved_json = resolved_json(with_points_file_contents(root, job_dir));
    return spec;
}

}  // namespace shardrun::job
