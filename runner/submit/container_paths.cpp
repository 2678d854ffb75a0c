#include "runner/submit/container_paths.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/submit/submit_targets.hpp"

namespace fs = std::filesystem;

namespace shardrun::submit {
namespace {

bool inside(const fs::path& path, const fs::path& folder)
{
    const auto relative = path.lexically_relative(folder);
    return !relative.empty() && *relative.begin() != "..";
}

/** The file of a local data.input (FILE:/DATASET, relative to the job's folder); none when remote or absent. */
std::optional<fs::path> local_input(const job::JobSpec& spec, const fs::path& job_dir)
{
    const auto& input = spec.data.input;
    if (input.empty() || storage::is_remote(input)) return std::nullopt;
    const fs::path file = input.substr(0, input.find(":/"));
    return (file.is_absolute() ? file : job_dir / file).lexically_normal();
}

}  // namespace

void check_container_paths(const SubmitOptions& options, const job::JobSpec& spec)
{
    const auto job_dir = fs::absolute(fs::path(spec.file)).lexically_normal().parent_path();
    const auto workdir = options.workdir.empty() ? fs::current_path() : fs::absolute(options.workdir).lexically_normal();
    const auto input = local_input(spec, job_dir);
    const fs::path shared = fs::path(options.shared_fs).lexically_normal();
    const auto title = options.target->title;
    if (storage::is_remote(spec.output.path)) {
        if (!input) {
            if (options.shared_fs.empty()) return;
            SHARDRUN_THROW(UsageError, fmt::format("submit: --shared-fs {}: the job names nothing on it (output.path {} "
                                                   "is in a bucket, which is all the containers share); leave "
                                                   "--shared-fs out", options.shared_fs, spec.output.path));
        }
        // The entrypoint downloads the job files and the --workdir upload; a shared file system holds the rest.
        if (options.shared_fs.empty() ? !(!options.workdir.empty() && inside(*input, workdir)) : !inside(*input, shared)) {
            const auto where = spec.sites.value("data.input", spec.file);
            SHARDRUN_THROW(UsageError, job::located(where, "data.input", fmt::format(
                "{} is on this machine's disk, which the {} containers do not see; put it in the bucket (s3://... or "
                "gs://...), inside --workdir (uploaded with the job), or on a file system they mount at the same path, "
                "named with --shared-fs", input->string(), title)));
        }
        return;
    }
    const auto output = fs::absolute(spec.output.path).lexically_normal();
    if (options.shared_fs.empty()) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: output.path {} is on this machine's disk, which the {} containers "
                                               "do not see; write output.path as s3://BUCKET/... or gs://BUCKET/..., or, "
                                               "when they mount a shared file system at the same path, name it with "
                                               "--shared-fs PATH", output.string(), title));
    }
    std::vector<std::pair<std::string, fs::path>> paths = {
        {"output.path", output}, {"the job file's folder", job_dir}, {"the workdir (--workdir, else the current folder)", workdir}};
    if (input) paths.emplace_back("data.input", *input);
    for (const auto& [what, path] : paths) {
        if (inside(path, shared)) continue;
        SHARDRUN_THROW(UsageError, fmt::format("submit: {} {} is not under --shared-fs {}, so the containers would not "
                                               "see it; move it there, or name the folder they mount with --shared-fs",
                                               what, path.string(), options.shared_fs));
    }
}

}  // namespace shardrun::submit
