#include "runner/process/task_folder.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <dirent.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <string_view>

namespace shardrun::process {
namespace {

std::string errno_text(int error) { return std::strerror(error); }

// O_PATH: only a handle for the *at calls; O_NOFOLLOW: a task folder planted as a symlink is refused.
int open_dir(const std::string& dir) { return open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); }

// Why open_dir failed: with O_PATH a symlink opens as itself and then fails O_DIRECTORY (ENOTDIR).
std::string open_dir_error(const std::string& dir, int error)
{
    struct stat info {};
    if (error == ELOOP || (lstat(dir.c_str(), &info) == 0 && S_ISLNK(info.st_mode))) {
        return fmt::format("the task folder {} is a symlink; refusing to write through it", dir);
    }
    return fmt::format("cannot use the task folder {}: {}", dir, errno_text(error));
}

std::string remove_outputs(int dir_fd, const std::string& dir)
{
    for (const char* name : {"stdout", "stderr", "result.json"}) {
        // unlinkat takes a planted symlink itself away, so nothing outside the folder is touched.
        if (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT) {
            return fmt::format("cannot remove {}/{} left by an earlier attempt: {}", dir, name, errno_text(errno));
        }
    }
    return {};
}

// mkdir of the task folder, making <output>.tasks (and a member's parent folder) on the way if needed.
int make_dir(const std::string& dir)
{
    if (mkdir(dir.c_str(), 0755) == 0) return 0;
    if (errno != ENOENT) return errno;
    std::error_code made;
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), made);
    if (made) return made.value();
    return mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
}

}  // namespace

std::string open_task_dir(const std::string& task_dir, int& fd)
{
    if (const int made = make_dir(task_dir); made != 0 && made != EEXIST) {
        return fmt::format("cannot create the task folder {}: {}", task_dir, errno_text(made));
    }
    fd = open_dir(task_dir);
    return fd < 0 ? open_dir_error(task_dir, errno) : std::string();
}

std::string prepare_task_dir(const std::string& task_dir, bool* fresh)
{
    const int made = make_dir(task_dir);
    if (fresh) *fresh = made == 0;
    if (made == 0) return {};  // new, so nothing stale in it
    if (made != EEXIST) return fmt::format("cannot create the task directory {}: {}", task_dir, errno_text(made));
    return clear_stale_outputs(task_dir);
}

std::string clear_stale_outputs(const std::string& task_dir)
{
    const int dir_fd = open_dir(task_dir);
    if (dir_fd < 0) {
        if (errno == ENOENT) return {};
        return open_dir_error(task_dir, errno);
    }
    auto error = remove_outputs(dir_fd, task_dir);
    close(dir_fd);
    return error;
}

std::string remove_kept_results(const std::string& task_dir, const std::vector<std::string>& names)
{
    const int dir_fd = open_dir(task_dir);
    if (dir_fd < 0) return errno == ENOENT ? std::string() : open_dir_error(task_dir, errno);
    std::string error;
    for (const auto& name : names) {
        if (unlinkat(dir_fd, name.c_str(), 0) != 0 && errno != ENOENT) {
            error = fmt::format("cannot remove {}/{} left by a failed attempt: {}", task_dir, name, errno_text(errno));
            break;
        }
    }
    close(dir_fd);
    return error;
}

int kept_attempts(const std::string& task_dir)
{
    DIR* dir = opendir(task_dir.c_str());  // most tasks have no folder: one failed call
    if (dir == nullptr) return 0;
    int highest = 0;
    while (const dirent* entry = readdir(dir)) {
        const std::string_view name(entry->d_name);
        for (const std::string_view stream : {"stdout.", "stderr."}) {
            if (name.substr(0, stream.size()) != stream) continue;
            const int k = std::atoi(std::string(name.substr(stream.size())).c_str());
            highest = std::max(highest, k);
        }
    }
    closedir(dir);
    return highest;
}

}  // namespace shardrun::process
