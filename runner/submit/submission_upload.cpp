#include "runner/submit/submission_upload.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "runner/errors.hpp"
#include "runner/exec/process.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace shardrun::submit {
namespace {

std::vector<std::string> this_environment()
{
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
    return env;
}

/** Runs `git -C dir ARGS` with its stdout into `out_file`; its exit code (127: no git). */
int git(const fs::path& dir, const std::vector<std::string>& args, const fs::path& out_file)
{
    exec::ProcessSpec spec;
    spec.argv = {"git", "-C", dir.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = this_environment();
    spec.stdout_path = out_file.string();
    spec.stderr_path = "/dev/null";
    return exec::run_process(spec, [] { return false; }).exit_code;
}

/**
 * In a git work tree: writes the workdir's files that git tracks or would track (not ignored),
 * relative to it, one a line, to `list` and returns true; the local submission folder, files
 * deleted but still tracked, and submodules (folders) are left out. Not in one: false.
 */
bool write_git_file_list(const fs::path& workdir, const fs::path& submit_dir, const fs::path& list)
{
    if (git(workdir, {"rev-parse", "--is-inside-work-tree"}, list) != 0) return false;
    if (git(workdir, {"ls-files", "-co", "--exclude-standard"}, list) != 0) {
        SHARDRUN_THROW(Error, fmt::format("submit: --workdir {}: `git ls-files -co --exclude-standard` failed there",
                                          workdir.string()));
    }
    std::vector<std::string> names;
    {
        std::ifstream in(list);
        for (std::string name; std::getline(in, name);) {
            const auto path = workdir / name;
            std::error_code error;
            const auto inside_submit = !path.lexically_relative(submit_dir).empty() &&
                                       *path.lexically_relative(submit_dir).begin() != "..";
            if (!inside_submit && fs::is_regular_file(fs::symlink_status(path, error))) names.push_back(name);
        }
    }
    std::ofstream out(list, std::ios::trunc);
    for (const auto& name : names) out << name << "\n";
    if (!out.flush()) SHARDRUN_THROW(Error, "cannot write " + list.string());
    return true;
}

// Interim until runner/storage (branch cloud-storage) is merged: rclone with the S3 endpoint mapping.
struct RcloneResult {
    int exit_code = 0;
    std::string error;
    bool ok() const { return exit_code == 0; }
};
RcloneResult run_rclone(const std::vector<std::string>& args)
{
    exec::ProcessSpec spec;
    spec.argv = {"rclone"};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = this_environment();
    const char* endpoint = std::getenv("AWS_ENDPOINT_URL");
    if (endpoint != nullptr) {
        spec.env.insert(spec.env.end(), {"RCLONE_S3_PROVIDER=Other", std::string("RCLONE_S3_ENDPOINT=") + endpoint});
    }
    spec.env.insert(spec.env.end(), {"RCLONE_S3_ENV_AUTH=true", "RCLONE_S3_NO_CHECK_BUCKET=true"});
    const auto result = exec::run_process(spec, [] { return false; });
    return {result.exit_code, result.exit_code == 0 ? "" : "see above"};
}
std::string rclone_address(const std::string& url)
{
    if (url.rfind("s3://", 0) == 0) return ":s3:" + url.substr(5);
    if (url.rfind("gs://", 0) == 0) return ":gcs:" + url.substr(5);
    return url;
}

/** rclone ARGS, or in a dry run the command line. @throws Error with rclone's last message */
void rclone(const std::vector<std::string>& args, const SubmitOptions& options, std::ostream& out, const std::string& what)
{
    if (options.dry_run) {
        out << "    rclone " << shell_join(args) << "\n";
        return;
    }
    const auto result = run_rclone(args);
    if (!result.ok()) {
        SHARDRUN_THROW(Error, fmt::format("submit: cannot upload {}: rclone exited {}: {}; check the credentials and "
                                          "that the bucket exists, then submit again", what, result.exit_code,
                                          result.error));
    }
}

}  // namespace

void upload_submission(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    if (files.remote_dir.empty()) return;
    if (options.dry_run) out << "  dry run: nothing uploaded; these commands would upload the job:\n";
    if (!files.upload_workdir.empty()) {
        const auto remote = rclone_address(files.remote_workdir);
        const auto list = files.dir / "workdir-files.txt";
        // sync --delete-excluded: a file deleted or newly ignored here is gone from the bucket's copy too.
        std::vector<std::string> args = {"sync", files.upload_workdir.string(), remote, "--delete-excluded"};
        std::string how;
        if (write_git_file_list(files.upload_workdir, files.dir, list)) {
            args.insert(args.end(), {"--files-from", list.string()});
            how = "the files git tracks or does not ignore";
        } else {
            args.insert(args.end(), {"--exclude", ".git/**"});
            const auto submit_dir = files.dir.parent_path().lexically_relative(files.upload_workdir);
            if (!submit_dir.empty() && *submit_dir.begin() != "..") {
                args.insert(args.end(), {"--exclude", "/" + submit_dir.generic_string() + "/**"});
            }
            how = "everything but .git/ (not a git work tree: nothing else is excluded)";
        }
        rclone(args, options, out, "--workdir " + files.upload_workdir.string());
        out << fmt::format("  workdir {} ({}) -> {}\n", files.upload_workdir.string(), how, files.remote_workdir);
    }
    rclone({"sync", files.dir.string(), rclone_address(files.remote_dir)}, options, out, files.dir.string());
    out << fmt::format("  job files {}/ -> {}/\n", files.dir.string(), files.remote_dir);
}

}  // namespace shardrun::submit
