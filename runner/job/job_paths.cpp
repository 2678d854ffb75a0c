#include "runner/job/job_paths.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace shardrun::job {
namespace {

std::string under(const std::string& dir, const std::string& path)
{
    return fs::path(path).is_absolute() ? path : (fs::path(dir) / path).lexically_normal().string();
}

std::string exec_cwd(const YAML::Node& node, const YamlContext& context, const std::string& job_dir)
{
    if (!node) return job_dir;
    if (!node.IsScalar() || node.Scalar().empty()) {
        context.fail(node, "exec.cwd", "must be a folder name (relative to the job file's folder)");
    }
    const auto dir = under(job_dir, node.Scalar());
    std::error_code error;
    const auto status = fs::status(dir, error);
    if (!fs::exists(status)) context.fail(node, "exec.cwd", fmt::format("'{}' does not exist; give an existing folder", dir));
    if (!fs::is_directory(status)) context.fail(node, "exec.cwd", fmt::format("'{}' is not a folder", dir));
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

void resolve_job_paths(const YAML::Node& exec, const YamlContext& context, const std::string& job_dir, JobSpec& spec)
{
    // "file.h5:/dataset": only the file part is a path. Left as written when the job file's folder
    // is the working directory, so messages show the name the user wrote.
    const auto split = spec.data.input.find(":/");
    std::error_code error;
    if (split != std::string::npos && job_dir != fs::current_path(error).lexically_normal().string()) {
        spec.data.input = under(job_dir, spec.data.input.substr(0, split)) + spec.data.input.substr(split);
    }
    if (spec.task != "exec") return;
    spec.exec.base_dir = job_dir;
    spec.exec.cwd = exec_cwd(exec.IsMap() ? exec["cwd"] : YAML::Node(), context, job_dir);
}

}  // namespace shardrun::job
