#include "runner/job/job_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>
#include <optional>

#include "runner/job/duration.hpp"
#include "runner/job/exec_results.hpp"

namespace shardrun::job {
namespace {

std::string read_string(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (!node.IsScalar() || node.Scalar().empty()) context.fail(node, path, "must be a non-empty string");
    return node.Scalar();
}

std::string read_choice(const YAML::Node& node, const YamlContext& context, const std::string& path,
                        const std::vector<std::string>& allowed)
{
    if (!node.IsScalar()) {
        context.fail(node, path, fmt::format("must be one word, not a {}; allowed: {}",
                                             node.IsSequence() ? "list" : node.IsMap() ? "mapping" : "null value",
                                             fmt::join(allowed, ", ")));
    }
    const auto value = node.Scalar();
    if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
        const auto suggestion = closest_name(value, allowed);
        context.fail(node, path,
                     fmt::format("'{}' is not allowed{}; allowed: {}", value,
                                 suggestion.empty() ? "" : fmt::format(" (did you mean '{}'?)", suggestion),
                                 fmt::join(allowed, ", ")));
    }
    return value;
}

double read_duration(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    const auto seconds = node.IsScalar() ? parse_duration(node.Scalar()) : std::nullopt;
    if (!seconds) context.fail(node, path, "must be a duration such as 90, 30s, 10m, 2h or 1h30m");
    return *seconds;
}

ScheduleSpec parse_schedule(const YAML::Node& node, const YamlContext& context)
{
    ScheduleSpec schedule;
    const std::vector<std::string> kinds = {"static", "block", "cyclic", "dynamic"};
    if (node.IsMap()) context.check_keys(node, "schedule", {"kind", "min_claim", "max_claim"});
    // A mapping without kind ({} or {min_claim: 2}) keeps the default kind; reading the missing
    // node["kind"] would throw yaml-cpp's InvalidNode (exit 1, no file or field).
    if (!node.IsMap() || node["kind"]) {
        const auto kind_node = node.IsMap() ? node["kind"] : node;
        const auto kind = read_choice(kind_node, context, node.IsMap() ? "schedule.kind" : "schedule", kinds);
        schedule.kind = kind == "cyclic" ? ScheduleKind::cyclic : kind == "dynamic" ? ScheduleKind::dynamic
                                                                                    : ScheduleKind::block;
    }
    if (node.IsMap() && node["min_claim"]) {
        schedule.min_claim = read_integer(node["min_claim"], context, "schedule.min_claim", 1);
    }
    if (node.IsMap() && node["max_claim"]) {
        schedule.max_claim = read_integer(node["max_claim"], context, "schedule.max_claim", 1);
        if (schedule.max_claim < schedule.min_claim) {
            context.fail(node["max_claim"], "schedule.max_claim",
                         fmt::format("{} is below min_claim {}; max_claim must be at least min_claim", schedule.max_claim,
                                     schedule.min_claim));
        }
    }
    return schedule;
}

/**
 * A result dimension that names a parameter: "{epochs}", or {epochs} unquoted (YAML reads that
 * as a mapping of one key without a value). nullopt for anything else (a number, rows).
 */
std::optional<std::string> parameter_dimension(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    std::string name;
    if (node.IsMap() && node.size() == 1 && node.begin()->first.IsScalar() && node.begin()->second.IsNull()) {
        name = node.begin()->first.Scalar();
    } else if (node.IsScalar() && !node.Scalar().empty() && node.Scalar().front() == '{') {
        const auto& text = node.Scalar();
        if (text.size() < 3 || text.back() != '}') {
            context.fail(node, path, fmt::format("'{}' is not a dimension; allowed: a whole number (at least 1), rows, or "
                                                 "\"{{name}}\" naming an integer parameter",
                                                 one_line(text)));
        }
        name = text.substr(1, text.size() - 2);
    } else {
        return std::nullopt;
    }
    const bool control = std::any_of(name.begin(), name.end(), [](char c) { return std::iscntrl(static_cast<unsigned char>(c)); });
    if (name.empty() || control || name.find_first_of("{} ") != std::string::npos) {
        context.fail(node, path, fmt::format("'{{{}}}' is not a parameter dimension; allowed: \"{{name}}\" naming an integer "
                                             "parameter",
                                             one_line(name)));
    }
    return name;
}

io::FieldSpec parse_result_field(const std::string& name, const YAML::Node& node, const YamlContext& context,
                                 const std::string& path)
{
    const std::vector<std::string> dtypes = {"float32", "float64", "int32", "int64"};
    io::FieldSpec field;
    field.name = name;
    const auto& dtype_node = node.IsSequence() && node.size() > 0 ? node[0] : node;
    const auto dtype = read_choice(dtype_node, context, node.IsSequence() ? path + "[0]" : path, dtypes);
    field.dtype = static_cast<io::DType>(std::find(dtypes.begin(), dtypes.end(), dtype) - dtypes.begin());
    // One task's values are held in memory and written as one row: bound the row, overflow included.
    constexpr std::uint64_t max_row_bytes = 1ull << 30;
    std::uint64_t bytes = io::dtype_size(field.dtype);
    for (size_t i = 1; node.IsSequence() && i < node.size(); ++i) {
        // `rows`: a data chunk's rows; its extent, data.chunk, is set by resolve_item_rows.
        if (node[i].IsScalar() && node[i].Scalar() == "rows") {
            if (!field.length_param.empty()) {
                context.fail(node[i], fmt::format("{}[{}]", path, i),
                             "rows cannot be combined with a parameter dimension in one field; allowed: [dtype, rows, n, ...] "
                             "or [dtype, \"{name}\", ...]");
            }
            if (i != 1) context.fail(node[i], fmt::format("{}[{}]", path, i), "rows may only be the first dimension: [dtype, rows, ...]");
            field.item_rows = true;
            field.shape.push_back(1);
            continue;
        }
        if (auto param = parameter_dimension(node[i], context, fmt::format("{}[{}]", path, i))) {
            // Its extent, the parameter's largest value, is set by resolve_param_shapes.
            if (field.item_rows) {
                context.fail(node[i], fmt::format("{}[{}]", path, i),
                             "a parameter dimension cannot be combined with rows in one field; allowed: [dtype, rows, n, ...] "
                             "or [dtype, \"{name}\", ...]");
            }
            if (!field.length_param.empty()) {
                context.fail(node[i], fmt::format("{}[{}]", path, i),
                             fmt::format("only one dimension of a field may name a parameter ({{{}}} is already one); allowed: one "
                                         "\"{{name}}\" dimension per field",
                                         field.length_param));
            }
            field.length_param = std::move(*param);
            field.length_axis = field.shape.size();
            field.shape.push_back(1);
            continue;
        }
        const auto extent = read_integer(node[i], context, fmt::format("{}[{}]", path, i), 1);
        field.shape.push_back(static_cast<size_t>(extent));
        if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(extent), &bytes) || bytes > max_row_bytes) {
            context.fail(node[i], fmt::format("{}[{}]", path, i),
                         "the field's shape makes one task's values larger than 1 GiB; allowed: at most 1 GiB per task");
        }
    }
    return field;
}

}  // namespace

int read_int(const YAML::Node& node, const YamlContext& context, const std::string& path, int minimum)
{
    const auto value = read_integer(node, context, path, minimum);
    if (value > std::numeric_limits<int>::max()) {
        context.fail(node, path, fmt::format("{} is too large; it must be at most {}", value, std::numeric_limits<int>::max()));
    }
    return static_cast<int>(value);
}

std::int64_t read_integer(const YAML::Node& node, const YamlContext& context, const std::string& path,
                          std::int64_t minimum)
{
    std::int64_t value = 0;
    double real = 0;
    if (!node.IsScalar()) {
        // e.g. --set retries.max=3 turns retries into a mapping
        context.fail(node, path, fmt::format("must be an integer (at least {}), not a {}", minimum,
                                             node.IsSequence() ? "list" : node.IsMap() ? "mapping" : "null value"));
    }
    if (!YAML::convert<std::int64_t>::decode(node, value)) {
        // 1e9 is a float in YAML; accept it when it is a whole number.
        // The range test comes first: casting a double outside int64 (1e30) is undefined.
        if (!YAML::convert<double>::decode(node, real) || !(real >= -0x1p63 && real < 0x1p63) ||
            real != static_cast<double>(static_cast<std::int64_t>(real))) {
            context.fail(node, path, fmt::format("'{}' is not an integer", node.Scalar()));
        }
        value = static_cast<std::int64_t>(real);
    }
    if (value < minimum) context.fail(node, path, fmt::format("{} is too small; it must be at least {}", value, minimum));
    return value;
}

void parse_identity(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                    JobSpec& spec)
{
    spec.name = root["name"] ? read_string(root["name"], context, "name")
                             : std::filesystem::path(context.file()).stem().string();
    if (spec.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
        std::string::npos) {
        context.fail(root["name"], "name", "may contain only letters, digits, '.', '_' and '-'");
    }
    if (!root["task"]) context.fail(root, "task", fmt::format("missing; allowed: {}", fmt::join(known_tasks, ", ")));
    spec.task = read_choice(root["task"], context, "task", known_tasks);
}

ParamMap parse_params(const YAML::Node& node, const YamlContext& context)
{
    ParamMap params;
    if (!node || node.IsNull()) return params;
    if (!node.IsMap()) context.fail(node, "params", "must be a mapping of names to scalar values");
    for (const auto& entry : node) {
        const auto key = entry.first.as<std::string>();
        if (!entry.second.IsScalar()) context.fail(entry.second, "params." + key, "must be a scalar value");
        params.set(key, scalar_value(entry.second));
    }
    return params;
}

DataSpec parse_data(const YAML::Node& node, const YamlContext& context)
{
    DataSpec data;
    if (!node || node.IsNull()) return data;
    if (!node.IsMap()) context.fail(node, "data", "must be {items: N, chunk: c} or {input: file.h5:/dataset, chunk: c}");
    context.check_keys(node, "data", {"items", "chunk", "input"});
    data.present = true;
    if (node["items"] && node["input"]) context.fail(node, "data", "give items or input, not both");
    if (!node["items"] && !node["input"]) context.fail(node, "data", "missing items (or input)");
    if (node["items"]) data.items = static_cast<std::uint64_t>(read_integer(node["items"], context, "data.items", 1));
    if (node["input"]) {
        data.input = read_string(node["input"], context, "data.input");
        if (data.input.find(":/") == std::string::npos) {
            context.fail(node["input"], "data.input", "must be file.h5:/dataset");
        }
    }
    if (!node["chunk"]) context.fail(node, "data.chunk", "missing; give the number of items per task");
    data.chunk = static_cast<std::uint64_t>(read_integer(node["chunk"], context, "data.chunk", 1));
    return data;
}

void parse_execution(const YAML::Node& root, const YamlContext& context, JobSpec& spec)
{
    if (root["schedule"]) spec.schedule = parse_schedule(root["schedule"], context);
    if (root["device"]) {
        const auto device = read_choice(root["device"], context, "device", {"auto", "cpu", "cuda"});
        spec.device = device == "cpu" ? DevicePreference::cpu : device == "cuda" ? DevicePreference::cuda
                                                                                 : DevicePreference::automatic;
    }
    if (root["gpus_per_task"]) spec.gpus_per_task = read_int(root["gpus_per_task"], context, "gpus_per_task", 1);
    if (root["slots_per_rank"]) spec.slots_per_rank = read_int(root["slots_per_rank"], context, "slots_per_rank", 1);
    if (root["gpus_per_rank"]) spec.gpus_per_rank = read_int(root["gpus_per_rank"], context, "gpus_per_rank", 1);
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
    if (root["retries"]) spec.retries = read_int(root["retries"], context, "retries", 0);
    if (root["timeout"]) spec.timeout_seconds = read_duration(root["timeout"], context, "timeout");
    if (root["timeout_grace"]) spec.timeout_grace_seconds = read_duration(root["timeout_grace"], context, "timeout_grace");
    if (root["collective_timeout"]) {
        spec.collective_timeout_seconds = read_duration(root["collective_timeout"], context, "collective_timeout");
    }
    if (root["rank_timeout"]) spec.rank_timeout_seconds = read_duration(root["rank_timeout"], context, "rank_timeout");
    if (root["drain_timeout"]) spec.drain_timeout_seconds = read_duration(root["drain_timeout"], context, "drain_timeout");
}

OutputSpec parse_output(const YAML::Node& node, const YamlContext& context, const std::string& job_name)
{
    OutputSpec output;
    output.path = "results/" + job_name + ".h5";
    if (!node || node.IsNull()) return output;
    if (!node.IsMap()) context.fail(node, "output", "must be {path: results/x.h5, layout: shards|single}");
    context.check_keys(node, "output", {"path", "layout"});
    if (node["path"]) output.path = read_string(node["path"], context, "output.path");
    if (node["layout"]) output.layout = read_choice(node["layout"], context, "output.layout", {"shards", "single"});
    return output;
}

ExecSpec parse_exec(const YAML::Node& node, const YamlContext& context, const std::string& task)
{
    ExecSpec exec;
    if (task != "exec") {
        if (node) context.fail(node, "exec", fmt::format("is only for task: exec (this job's task is {})", task));
        return exec;
    }
    if (!node || !node.IsMap()) context.fail(node, "exec", "missing; task: exec needs exec: {argv: [program, args...]}");
    context.check_keys(node, "exec", {"argv", "env", "results", "mode", "worker_restarts", "worker_start_timeout",
                                      "keep_files", "cwd"});
    if (node["mode"]) {
        exec.mode = read_choice(node["mode"], context, "exec.mode", {"task", "worker"}) == "worker" ? ExecSpec::Mode::worker
                                                                                                    : ExecSpec::Mode::task;
    }
    for (const char* key : {"worker_restarts", "worker_start_timeout"}) {
        if (node[key] && exec.mode != ExecSpec::Mode::worker) {
            context.fail(node[key], fmt::format("exec.{}", key), "applies only with exec.mode: worker");
        }
    }
    if (node["worker_restarts"]) exec.worker_restarts = read_int(node["worker_restarts"], context, "exec.worker_restarts", 1);
    if (node["worker_start_timeout"]) {
        exec.worker_start_timeout_seconds = read_duration(node["worker_start_timeout"], context, "exec.worker_start_timeout");
        if (exec.worker_start_timeout_seconds <= 0) {
            context.fail(node["worker_start_timeout"], "exec.worker_start_timeout", "must be above 0 (e.g. 30s, 10m)");
        }
    }
    if (node["keep_files"]) exec.keep_files = read_bool(node["keep_files"], context, "exec.keep_files");
    const auto& argv = node["argv"];
    if (!argv || !argv.IsSequence() || argv.size() == 0) {
        context.fail(argv ? argv : node, "exec.argv", "must be a non-empty list: [program, arg, ...]");
    }
    for (size_t i = 0; i < argv.size(); ++i) {
        exec.argv.push_back(read_string(argv[i], context, fmt::format("exec.argv[{}]", i)));
    }
    if (const auto& env = node["env"]; env) {
        if (!env.IsMap()) context.fail(env, "exec.env", "must map variable names to values");
        for (const auto& entry : env) {
            const auto key = entry.first.as<std::string>();
            const bool valid = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                               std::all_of(key.begin(), key.end(), [](char c) {
                                   return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                               });
            if (!valid) {
                context.fail(entry.first, "exec.env." + key,
                             fmt::format("'{}' is not an environment variable name; allowed: letters, digits and _, "
                                         "not starting with a digit",
                                         key));
            }
            exec.env.emplace_back(key, read_string(entry.second, context, "exec.env." + key));
        }
    }
    if (const auto& results = node["results"]; results) {
        if (!results.IsMap()) context.fail(results, "exec.results", "must map field names to a dtype or [dtype, dims...]");
        for (const auto& entry : results) {
            const auto key = entry.first.as<std::string>();
            context.check_dataset_name(entry.first, "exec.results." + key, key);
            exec.results.push_back(parse_result_field(key, entry.second, context, "exec.results." + key));
        }
    }
    return exec;
}

}  // namespace shardrun::job
