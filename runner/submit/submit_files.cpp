#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_targets.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "io/layout/output_layout.hpp"
#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"

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
    // absolute() first: a job file named without a folder has an empty parent, which absolute() refuses.
    if (file.is_relative()) file = fs::absolute(fs::path(spec.file)).parent_path() / file;
    return file.lexically_normal();
}

}  // namespace

bool is_remote_url(const std::string& path) { return storage::is_remote(path); }

namespace {

/** `folder` relative to `base` when it lies inside it ("." for `base` itself); "." otherwise. */
fs::path inside(const fs::path& folder, const fs::path& base)
{
    const auto relative = folder.lexically_relative(base);
    if (relative.empty() || *relative.begin() == "..") return ".";
    return relative;
}

/**
 * The job's folder and its points file as the cloud entrypoint sees them with a bucket output:
 * it copies <output>.submit/<target>/ into $SCRATCH and the uploaded workdir into
 * $SCRATCH/workdir, where it starts. Relative, so no path of this machine is in the command.
 */
void add_remote_paths(SubmitFiles& files, const job::JobSpec& spec, const std::optional<std::string>& points)
{
    std::string to_scratch;  // from the job's folder back up to $SCRATCH
    if (!files.upload_workdir.empty()) {
        const auto job_dir = inside(fs::absolute(fs::path(spec.file)).lexically_normal().parent_path(), files.upload_workdir);
        files.run_args.push_back("--job-dir");
        files.run_args.push_back(job_dir.string());
        to_scratch = "../";
        for (const auto& part : job_dir) {
            if (part != ".") to_scratch += "../";
        }
    }
    if (points) {
        files.run_args.push_back("--set");
        files.run_args.push_back("sweep.points_file=" + to_scratch + "points" + fs::path(*points).extension().string());
    }
}

}  // namespace

SubmitFiles plan_files(const SubmitOptions& options, const job::JobSpec& spec)
{
    SubmitFiles files;
    files.job_name = spec.name;
    files.drain_timeout_seconds = spec.drain_timeout_seconds;
    files.workdir = options.workdir.empty() ? fs::current_path() : fs::absolute(options.workdir).lexically_normal();
    const std::string target(options.target->name);
    const bool remote = is_remote_url(spec.output.path);
    const bool cloud = !options.target->runs_this_executable;
    if (remote) {
        // The URL as written; the local copies of the files go to <current dir>/<name>.submit/.
        files.output = spec.output.path;
        const auto name = spec.output.path.substr(spec.output.path.find_last_of("/:") + 1);
        files.dir = fs::current_path() / io::layout::submit_dir(name) / target;
    } else {
        files.output = fs::absolute(spec.output.path).lexically_normal();
        files.dir = io::layout::submit_dir(files.output.string()) / target;
    }
    files.job = files.dir / "job.yaml";
    files.shardrun = !options.shardrun.empty()             ? options.shardrun
                     : options.target->runs_this_executable ? this_executable()
                                                            : std::string("shardrun");
    const auto points = points_file(spec, options.overrides);
    if (remote && cloud) {
        files.remote_dir = (io::layout::submit_dir(spec.output.path) / target).string();
        if (!options.workdir.empty()) {
            files.upload_workdir = files.workdir;
            files.remote_workdir = (io::layout::submit_dir(spec.output.path) / "workdir").string();
        }
        for (const auto& assignment : options.overrides) {
            files.run_args.push_back("--set");
            files.run_args.push_back(assignment);
        }
        add_remote_paths(files, spec, points);
        return files;
    }
    // The copy below lives in <output>.submit/; the job's relative paths still mean the original's folder.
    files.run_args.push_back("--job-dir");
    files.run_args.push_back(fs::absolute(fs::path(spec.file)).lexically_normal().parent_path().string());
    for (const auto& assignment : options.overrides) {
        files.run_args.push_back("--set");
        files.run_args.push_back(assignment);
    }
    if (points) {
        files.run_args.push_back("--set");
        files.run_args.push_back("sweep.points_file=" + (files.dir / ("points" + fs::path(*points).extension().string())).string());
    }
    return files;
}

void write_job_copy(SubmitFiles& files, const job::JobSpec& spec, const SubmitOptions& options, bool staged)
{
    std::error_code error;
    fs::create_directories(files.dir, error);
    if (error) SHARDRUN_THROW(Error, fmt::format("cannot create {}: {}", files.dir.string(), error.message()));
    if (staged) {
        write_staged_file(files, files.job, spec.text);
    } else {
        write_text_file(files.job, spec.text);
    }
    if (const auto name = points_file(spec, options.overrides)) {
        const auto copy = files.dir / ("points" + fs::path(*name).extension().string());
        const auto target = staged ? fs::path(copy.string() + std::string(staged_suffix)) : copy;
        fs::copy_file(points_source(spec, *name), target, fs::copy_options::overwrite_existing, error);
        if (error) SHARDRUN_THROW(Error, fmt::format("cannot copy the points file {} to {}: {}", *name, target.string(), error.message()));
        if (staged) files.staged.push_back(copy);
    }
}

void write_staged_file(SubmitFiles& files, const fs::path& path, const std::string& text, bool executable)
{
    write_text_file(path.string() + std::string(staged_suffix), text, executable);
    files.staged.push_back(path);
}

void publish_staged(const SubmitFiles& files)
{
    for (const auto& path : files.staged) {
        std::error_code error;
        fs::rename(path.string() + std::string(staged_suffix), path, error);
        if (error) SHARDRUN_THROW(Error, fmt::format("cannot move {}{} onto {}: {}", path.string(), staged_suffix, path.string(), error.message()));
    }
}

void discard_staged(const SubmitFiles& files) noexcept
{
    for (const auto& path : files.staged) {
        std::error_code error;
        fs::remove(path.string() + std::string(staged_suffix), error);
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
