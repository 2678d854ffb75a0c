#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_targets.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "runner/errors.hpp"

namespace fs = std::filesystem;

namespace shardrun::submit {
namespace {

std::string this_executable()
{
    std::error_code error;
    const auto self = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string("shardrun") : self.string();
}

/** The points_file the job names after the overrides (the last --set of it wins), if any. */
std::optional<std::string> points_file(const job::JobSpec& spec, const std::vector<std::string>& overrides)
{
    std::optional<std::string> name;
    try {
        const auto root = YAML::Load(spec.text);
        if (root.IsMap() && root["sweep"] && root["sweep"]["points_file"] && root["sweep"]["points_file"].IsScalar()) {
            name = root["sweep"]["points_file"].Scalar();
        }
    } catch (const YAML::Exception&) {
        // The job was already parsed by prepare_job(); nothing to do here.
    }
    const std::string key = "sweep.points_file=";
    for (const auto& assignment : overrides) {
        if (assignment.rfind(key, 0) == 0) name = assignment.substr(key.size());
    }
    return name;
}

fs::path points_source(const job::JobSpec& spec, const std::string& name)
{
    fs::path file = name;
    if (file.is_relative()) file = fs::absolute(fs::path(spec.file).parent_path()) / file;
    return file.lexically_normal();
}

}  // namespace

SubmitFiles plan_files(const SubmitOptions& options, const job::JobSpec& spec)
{
    SubmitFiles files;
    files.job_name = spec.name;
    files.workdir = fs::current_path();
    files.output = fs::absolute(spec.output.path).lexically_normal();
    files.dir = fs::path(files.output.string() + ".submit") / std::string(options.target->name);
    files.job = files.dir / "job.yaml";
    files.shardrun = !options.shardrun.empty()             ? options.shardrun
                     : options.target->runs_this_executable ? this_executable()
                                                            : std::string("shardrun");
    // The copy below lives in <output>.submit/; the job's relative paths still mean the original's folder.
    files.run_args.push_back("--job-dir");
    files.run_args.push_back(fs::absolute(fs::path(spec.file)).lexically_normal().parent_path().string());
    for (const auto& assignment : options.overrides) {
        files.run_args.push_back("--set");
        files.run_args.push_back(assignment);
    }
    if (const auto name = points_file(spec, options.overrides)) {
        files.run_args.push_back("--set");
        files.run_args.push_back("sweep.points_file=" + (files.dir / ("points" + fs::path(*name).extension().string())).string());
    }
    return files;
}

void write_job_copy(const SubmitFiles& files, const job::JobSpec& spec, const SubmitOptions& options)
{
    std::error_code error;
    fs::create_directories(files.dir, error);
    if (error) SHARDRUN_THROW(Error, fmt::format("cannot create {}: {}", files.dir.string(), error.message()));
    write_text_file(files.job, spec.text);
    if (const auto name = points_file(spec, options.overrides)) {
        const auto copy = files.dir / ("points" + fs::path(*name).extension().string());
        fs::copy_file(points_source(spec, *name), copy, fs::copy_options::overwrite_existing, error);
        if (error) SHARDRUN_THROW(Error, fmt::format("cannot copy the points file {} to {}: {}", *name, copy.string(), error.message()));
    }
}

void write_text_file(const fs::path& path, const std::string& text, bool executable)
{
    const auto temp = path.string() + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) SHARDRUN_THROW(Error, fmt::format("cannot write {}", temp));
    }
    std::error_code error;
    fs::permissions(temp, executable ? fs::perms(0755) : fs::perms(0644), error);
    fs::rename(temp, path, error);
    if (error) SHARDRUN_THROW(Error, fmt::format("cannot write {}: {}", path.string(), error.message()));
}

std::string shell_quote(std::string_view text)
{
    const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return std::string(text);
    std::string quoted = "'";
    for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string shell_join(const std::vector<std::string>& words)
{
    std::string line;
    for (const auto& word : words) line += (line.empty() ? "" : " ") + shell_quote(word);
    return line;
}

std::string safe_name(std::string_view name, std::size_t max)
{
    std::string safe;
    for (const char c : name.substr(0, max)) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '-';
    return safe.empty() ? std::string("shardrun") : safe;
}

}  // namespace shardrun::submit
