#include "runner/job/job_paths.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "runner/job/job_checks.hpp"
#include "runner/job/remote_path.hpp"

namespace fs = std::filesystem;

namespace shardrun::job {
namespace {

std::string under(const std::string& dir, const std::string& path)
{
    return fs::path(path).is_absolute() ? path : (fs::path(dir) / path).lexically_normal().string();
}

// exec.cwd as read_exec() kept it (default: the job file's folder), which must be an existing folder.
std::string exec_cwd(const std::string& cwd, const YAML::Mark& mark, const YamlContext& context, const std::string& job_dir)
{
    if (cwd.empty()) return job_dir;
    const auto dir = under(job_dir, cwd);
    std::error_code error;
    const auto status = fs::status(dir, error);
    if (!fs::exists(status)) context.fail(mark, "exec.cwd", fmt::format("'{}' does not exist; give an existing folder", dir));
    if (!fs::is_directory(status)) context.fail(mark, "exec.cwd", fmt::format("'{}' is not a folder", dir));
    return dir;
}

}  // namespace

std::string job_dir_of(const std::string& job_file, const std::string& given)
{
    if (!given.empty()) {
        auto dir = fs::absolute(fs::path(given)).lexically_normal();
        return (dir.has_filename() ? dir : dir.parent_path()).string();  // "a/b/" -> "a/b"
    }
    return fs::absolute(fs::path(job_file)).lexically_normal().parent_path().string();
}

void resolve_job_paths(JobRead& job, const YamlContext& context, const std::string& given_job_dir)
{
    auto& spec = job.spec;
    const auto job_dir = job_dir_of(spec.file, given_job_dir);
    // "file.h5:/dataset": only the file part is a path. Left as written when the job file's folder
    // is the working directory, so messages show the name the user wrote.
    const auto split = spec.data.input.find(":/");
    std::error_code error;
    const bool relocate = !spec.data.input.empty() && !storage::is_remote(spec.data.input) &&
                          job_dir != fs::current_path(error).lexically_normal().string();
    if (relocate && spec.data.format != "hdf5") {
        spec.data.input = under(job_dir, spec.data.input);  // a line or Parquet file: all of it is the path
    } else if (relocate && split != std::string::npos) {
        spec.data.input = under(job_dir, spec.data.input.substr(0, split)) + spec.data.input.substr(split);
    }
    if (spec.task != "exec") return;
    spec.exec.base_dir = job_dir;
    spec.exec.cwd = exec_cwd(spec.exec.cwd, job.marks.value("exec.cwd"), context, job_dir);
}

}  // namespace shardrun::job
