// `exec:`: the user's program, how it runs, and the result fields it declares.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {
namespace {

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

io::FieldSpec read_result_field(const std::string& name, const YAML::Node& node, const YamlContext& context,
                                const std::string& path, FieldMarks& marks)
{
    const std::vector<std::string> dtypes = {"float32", "float64", "int32", "int64", "bool"};  // io::DType order
    io::FieldSpec field;
    field.name = name;
    const auto& dtype_node = node.IsSequence() && node.size() > 0 ? node[0] : node;
    const auto dtype = read_choice(dtype_node, context, node.IsSequence() ? path + "[0]" : path, dtypes);
    field.dtype = static_cast<io::DType>(std::find(dtypes.begin(), dtypes.end(), dtype) - dtypes.begin());
    // One task's values are held in memory and written as one row: bound the row, overflow included.
    constexpr std::uint64_t max_row_bytes = 1ull << 30;
    std::uint64_t bytes = io::dtype_size(field.dtype);
    for (size_t i = 1; node.IsSequence() && i < node.size(); ++i) {
        marks.values[fmt::format("{}[{}]", path, i)] = node[i].Mark();  // for rows and "{name}" (job_checks.hpp)
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

void read_exec(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["exec"];
    const auto& task = job.spec.task;
    auto& exec = job.spec.exec;
    auto& marks = job.marks;
    marks.values["exec"] = mark_of(node);
    if (task != "exec") {
        if (node) context.fail(node, "exec", fmt::format("is only for task: exec (this job's task is {})", task));
        return;
    }
    if (!node) context.fail(node, "exec", "missing; task: exec needs exec: {argv: [program, args...]}");
    if (!node.IsMap()) context.fail(node, "exec", "must be a mapping: exec: {argv: [program, args...]}");
    context.check_keys(node, "exec", job_field_names("exec"));
    if (node["mode"]) {
        marks.values["exec.mode"] = node["mode"].Mark();
        exec.mode = ExecSpec::mode_named(read_choice(node["mode"], context, "exec.mode"));
    }
    for (const char* key : {"worker_restarts", "worker_start_timeout"}) {
        if (node[key] && exec.mode != ExecSpec::Mode::worker) {
            context.fail(node[key], fmt::format("exec.{}", key), "applies only with exec.mode: worker");
        }
    }
    if (node["worker_restarts"]) exec.worker_restarts = read_int(node["worker_restarts"], context, "exec.worker_restarts");
    if (node["worker_start_timeout"]) {
        exec.worker_start_timeout_seconds = read_duration(node["worker_start_timeout"], context, "exec.worker_start_timeout");
        if (exec.worker_start_timeout_seconds <= 0) {
            context.fail(node["worker_start_timeout"], "exec.worker_start_timeout", "must be above 0 (e.g. 30s, 10m)");
        }
    }
    if (node["keep_files"]) exec.keep_files = read_bool(node["keep_files"], context, "exec.keep_files");
    if (node["checkpoint_sync"]) {
        exec.checkpoint_sync_seconds = read_duration(node["checkpoint_sync"], context, "exec.checkpoint_sync");
    }
    if (node["keep_checkpoints"]) {
        exec.keep_checkpoints = read_bool(node["keep_checkpoints"], context, "exec.keep_checkpoints");
    }
    const auto& argv = node["argv"];
    if (!argv || !argv.IsSequence() || argv.size() == 0) {
        context.fail(argv ? argv : node, "exec.argv", "must be a non-empty list: [program, arg, ...]");
    }
    for (size_t i = 0; i < argv.size(); ++i) {
        const auto path = fmt::format("exec.argv[{}]", i);
        exec.argv.push_back(read_string(argv[i], context, path));
        marks.values[path] = argv[i].Mark();
    }
    if (const auto& python = node["python"]; python) {
        // The interpreter the job names runs its Python programs; without it, python3 as PATH finds it
        // (an activated venv's). argv[0] with a '/' is then the job file's folder's, as any program.
        const auto interpreter = read_string(python, context, "exec.python");
        if (exec.argv[0] != "python" && exec.argv[0] != "python3") {
            context.fail(python, "exec.python", fmt::format("replaces an exec.argv[0] of python or python3, and argv[0] is "
                                                            "'{}'; write [python3, script.py, ...] or leave exec.python out",
                                                            exec.argv[0]));
        }
        exec.argv[0] = interpreter;
        marks.values["exec.python"] = python.Mark();
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
            marks.values["exec.env." + key] = entry.second.Mark();
        }
    }
    if (const auto& results = node["results"]; results) {
        if (!results.IsMap()) context.fail(results, "exec.results", "must map field names to a dtype or [dtype, dims...]");
        for (const auto& entry : results) {
            const auto key = entry.first.as<std::string>();
            context.check_dataset_name(entry.first, "exec.results." + key, key);
            exec.results.push_back(read_result_field(key, entry.second, context, "exec.results." + key, marks));
            marks.keys["exec.results." + key] = entry.first.Mark();
        }
    }
    // As written; job_paths.cpp makes it absolute and checks that it is a folder.
    if (const auto& cwd = node["cwd"]; cwd) {
        if (!cwd.IsScalar() || cwd.Scalar().empty()) {
            context.fail(cwd, "exec.cwd", "must be a folder name (relative to the job file's folder)");
        }
        exec.cwd = cwd.Scalar();
        marks.values["exec.cwd"] = cwd.Mark();
    }
}

}  // namespace shardrun::job
