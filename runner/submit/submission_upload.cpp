#include "runner/submit/submission_upload.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

#include "base/documented_error.hpp"
#include "runner/errors.hpp"
#include "runner/process/process.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

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
    process::ProcessSpec spec;
    spec.argv = {"git", "-C", dir.string()};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = this_environment();
    spec.stdout_path = out_file.string();
    spec.stderr_path = "/dev/null";
    return process::run_process(spec, [] { return false; }).exit_code;
}

bool inside(const fs::path& path, const fs::path& folder)
{
    const auto relative = path.lexically_relative(folder);
    return !relative.empty() && *relative.begin() != "..";
}

/** Whether `name` (relative to the workdir) lies in a folder `<output>.submit/` that submit wrote,
 *  this job's or another's: job files of other outputs are no code of this one. */
bool in_a_submission_folder(const std::string& name)
{
    const fs::path path(name);
    for (auto part = path.begin(); part != path.end() && std::next(part) != path.end(); ++part) {
        if (part->extension() == ".submit") return true;
    }
    return false;
}

/**
 * The workdir's files to upload, relative to it: in a git work tree what git tracks or would
 * track (`git ls-files -co --exclude-standard`, without files deleted but still tracked and
 * submodules); elsewhere every file but .git/. No submission folder (<output>.submit/) is one.
 * @return whether the workdir is in a git work tree
 */
bool workdir_files(const fs::path& workdir, const fs::path& submit_dir, const fs::path& scratch_file,
                   std::vector<std::string>& names)
{
    const bool in_git = git(workdir, {"rev-parse", "--is-inside-work-tree"}, scratch_file) == 0;
    if (in_git) {
        if (git(workdir, {"ls-files", "-co", "--exclude-standard"}, scratch_file) != 0) {
            SHARDRUN_THROW(Error, fmt::format("submit: --workdir {}: `git ls-files -co --exclude-standard` failed there",
                                              workdir.string()));
        }
        std::ifstream in(scratch_file);
        for (std::string name; std::getline(in, name);) names.push_back(name);
    } else {
        auto it = fs::recursive_directory_iterator(workdir, fs::directory_options::skip_permission_denied);
        for (; it != fs::recursive_directory_iterator(); ++it) {
            if (it->path().filename() == ".git" && it->is_directory()) it.disable_recursion_pending();
            names.push_back(it->path().lexically_relative(workdir).string());
        }
    }
    std::vector<std::string> kept;
    for (const auto& name : names) {
        const auto path = workdir / name;
        std::error_code error;
        if (!inside(path, submit_dir) && !in_a_submission_folder(name) && name.rfind(".git/", 0) != 0 &&
            fs::is_regular_file(fs::symlink_status(path, error))) {
            kept.push_back(name);
        }
    }
    names = kept;
    return in_git;
}

void write_lines(const fs::path& file, const std::vector<std::string>& lines)
{
    std::ofstream out(file, std::ios::trunc);
    for (const auto& line : lines) out << line << "\n";
    if (!out.flush()) SHARDRUN_THROW(Error, "cannot write " + file.string());
}

/** rclone ARGS, or in a dry run the command line. @throws Error with rclone's last message */
void rclone(const std::vector<std::string>& args, const SubmitOptions& options, std::ostream& out, const std::string& what)
{
    if (options.dry_run) {
        out << "    rclone " << shell_join(args) << "\n";
        return;
    }
    const auto result = storage::run_rclone(args);
    if (!result.ok()) {
        SHARDRUN_THROW_DOCUMENTED(Error, "docs/troubleshooting.md#submit-errors",
                                  "submit: " + storage::transfer_failure("upload " + what, result) + ", then submit again");
    }
}

}  // namespace

void upload_submission(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    if (files.remote_dir.empty()) return;
    if (options.dry_run) out << "  dry run: nothing uploaded; these commands would upload the job:\n";
    if (!files.upload_workdir.empty()) {
        std::vector<std::string> names;
        const bool in_git = workdir_files(files.upload_workdir, files.dir.parent_path(), files.dir / "workdir-files.txt", names);
        write_lines(files.dir / "workdir-files.txt", names);
        // Object storage keeps no file modes: the entrypoint sets the executable bit of these again.
        std::vector<std::string> executables;
        for (const auto& name : names) {
            std::error_code error;
            if ((fs::status(files.upload_workdir / name, error).permissions() & fs::perms::owner_exec) != fs::perms::none) {
                executables.push_back(name);
            }
        }
        write_lines(files.dir / "workdir-executables.txt", executables);
        // sync --delete-excluded: a file deleted or newly ignored here is gone from the bucket's copy too.
        rclone({"sync", files.upload_workdir.string(), storage::parse_remote(files.remote_workdir)->rclone,
                "--files-from", (files.dir / "workdir-files.txt").string(), "--delete-excluded"},
               options, out, "--workdir " + files.upload_workdir.string());
        out << fmt::format("  workdir {}: {} file(s) ({}) -> {}\n", files.upload_workdir.string(), names.size(),
                           in_git ? "what git tracks or does not ignore"
                                  : "everything but .git/: not a git work tree, so nothing else is left out",
                           files.remote_workdir);
    }
    rclone({"sync", files.dir.string(), storage::parse_remote(files.remote_dir)->rclone}, options, out, files.dir.string());
    out << fmt::format("  job files {}/ -> {}/\n", files.dir.string(), files.remote_dir);
}

}  // namespace shardrun::submit
