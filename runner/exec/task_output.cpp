#include "io/errors.hpp"
#include "runner/exec/task_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "runner/exec/process_tree.hpp"

namespace shardrun::tasks {
namespace {

constexpr const char* stream_names[2] = {"stdout", "stderr"};

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

// Makes task_dir if missing and opens it for the *at calls into `fd`. @return an error message, or empty
std::string open_task_dir(const std::string& task_dir, int& fd)
{
    if (const int made = make_dir(task_dir); made != 0 && made != EEXIST) {
        return fmt::format("cannot create the task folder {}: {}", task_dir, errno_text(made));
    }
    fd = open_dir(task_dir);
    return fd < 0 ? open_dir_error(task_dir, errno) : std::string();
}

// The token in a scratch name of this host, ".scratch-<host>-<pid>-<start>-<slot>.<kind>", or
// empty: exactly three numbers, so a host whose name extends this one ("node-12" beside
// "node") never matches.
std::string_view scratch_token(std::string_view name, std::string_view prefix)
{
    if (name.substr(0, prefix.size()) != prefix) return {};
    auto rest = name.substr(prefix.size());
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) return {};
    const auto kind = rest.substr(dot + 1);
    if (kind != "stdout" && kind != "stderr" && kind != "results") return {};
    rest = rest.substr(0, dot);
    const auto first = rest.find('-');
    const auto second = first == std::string_view::npos ? first : rest.find('-', first + 1);
    if (second == std::string_view::npos || rest.find('-', second + 1) != std::string_view::npos) return {};
    if (rest.find_first_not_of("0123456789-") != std::string_view::npos) return {};
    if (first == 0 || second == first + 1 || second + 1 == rest.size()) return {};
    return rest.substr(0, second);
}

// Removes the scratch files and folders that processes of this host left when they were killed
// (kill -9, a node's OOM killer) before they could remove them; a live process's are kept.
void remove_dead_scratch(const std::string& tasks_dir, const std::string& host)
{
    std::error_code error;
    std::vector<std::string> dead;
    const std::string prefix = ".scratch-" + host + "-";
    for (std::filesystem::directory_iterator it(tasks_dir, error), end; !error && it != end; it.increment(error)) {
        const auto name = it->path().filename().string();
        const auto token = scratch_token(name, prefix);
        if (!token.empty() && !rank_token_alive(token)) dead.push_back(it->path().string());
    }
    for (const auto& path : dead) std::filesystem::remove_all(path, error);
}

}  // namespace

TaskOutput::TaskOutput(std::string tasks_dir, std::string name) : tasks_dir_(std::move(tasks_dir)), name_(std::move(name))
{
    open_scratch(0);
    try {
        open_scratch(1);
    } catch (...) {
        close_scratch(0);
        throw;
    }
}

TaskOutput::~TaskOutput()
{
    close_scratch(0);
    close_scratch(1);
    std::error_code ignored;
    if (!result_dir_.empty()) std::filesystem::remove_all(result_dir_, ignored);
}

const std::string& TaskOutput::result_dir()
{
    if (!result_dir_.empty()) return result_dir_;
    auto path = fmt::format("{}/.scratch-{}.results", tasks_dir_, name_);
    // EEXIST: left by a process that was killed before it could clean up (its name had this pid).
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
        SHARDRUN_THROW(io::WriteError, fmt::format("cannot create {}: {}", path, errno_text(errno)));
    }
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
        SHARDRUN_THROW(io::WriteError, fmt::format("{} is not a folder; refusing to write through it", path));
    }
    result_dir_ = std::move(path);
    return result_dir_;
}

std::string TaskOutput::keep_results(const std::string& task_dir, const std::vector<std::string>& names)
{
    if (result_dir_.empty()) return {};
    int dir_fd = -1;
    std::string error;
    for (const auto& name : names) {
        const auto from = result_dir_ + "/" + name;
        struct stat info {};
        if (lstat(from.c_str(), &info) != 0) continue;
        if (dir_fd < 0 && !(error = open_task_dir(task_dir, dir_fd)).empty()) break;
        if (renameat(AT_FDCWD, from.c_str(), dir_fd, name.c_str()) != 0) {
            error = fmt::format("cannot keep {}/{}: {}", task_dir, name, errno_text(errno));
            break;
        }
    }
    if (dir_fd >= 0) close(dir_fd);
    return error;
}

void TaskOutput::close_scratch(int stream)
{
    if (fds_[stream] < 0) return;
    close(fds_[stream]);
    fds_[stream] = -1;
    unlink(scratch_path(stream).c_str());
}

std::string TaskOutput::scratch_path(int stream) const
{
    return fmt::format("{}/.scratch-{}.{}", tasks_dir_, name_, stream_names[stream]);
}

void TaskOutput::open_scratch(int stream)
{
    const auto path = scratch_path(stream);
    const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(path.c_str(), flags, 0644);
    if (fd < 0 && errno == ENOENT) {
        std::error_code ignored;
        std::filesystem::create_directories(tasks_dir_, ignored);
        fd = open(path.c_str(), flags, 0644);
    }
    if (fd < 0 && errno == EEXIST) {
        // Left by a process that was killed before it could clean up (its name had this pid).
        unlink(path.c_str());
        fd = open(path.c_str(), flags, 0644);
    }
    if (fd < 0) SHARDRUN_THROW(io::WriteError, fmt::format("cannot create {}: {}", path, errno_text(errno)));
    fds_[stream] = fd;
}

std::string TaskOutput::stderr_tail() const
{
    struct stat info {};
    if (fstat(fds_[1], &info) != 0 || info.st_size == 0) return {};
    const off_t start = std::max<off_t>(0, info.st_size - 4096);
    std::string text(static_cast<size_t>(info.st_size - start), '\0');
    const auto got = pread(fds_[1], text.data(), text.size(), start);
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    const auto newline = text.find_last_of('\n');
    auto line = text.substr(newline == std::string::npos ? 0 : newline + 1);
    for (auto& c : line) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

std::string TaskOutput::keep(const std::string& task_dir)
{
    int dir_fd = -1;
    std::string error;
    for (int stream : {0, 1}) {
        struct stat info {};
        if (fstat(fds_[stream], &info) == 0 && info.st_size == 0) {
            // A program may have moved the shared offset without writing; the next one starts at 0.
            lseek(fds_[stream], 0, SEEK_SET);
            continue;
        }
        if (dir_fd < 0 && !(error = open_task_dir(task_dir, dir_fd)).empty()) break;
        if (renameat(AT_FDCWD, scratch_path(stream).c_str(), dir_fd, stream_names[stream]) != 0) {
            error = fmt::format("cannot keep {}/{}: {}", task_dir, stream_names[stream], errno_text(errno));
            break;
        }
        close(fds_[stream]);
        fds_[stream] = -1;
        open_scratch(stream);
    }
    if (dir_fd >= 0) close(dir_fd);
    return error;
}

std::unique_ptr<TaskOutput> TaskOutputPool::acquire(const std::string& tasks_dir, const std::string& host)
{
    int index = 0;
    {
        std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            auto output = std::move(free_.back());
            free_.pop_back();
            return output;
        }
        index = made_++;
        if (index == 0) {
            tasks_dir_ = tasks_dir;
            host_ = host;
        }
    }
    if (index == 0) remove_dead_scratch(tasks_dir, host);
    // Host and rank token: ranks of several nodes may share <output>.tasks on a shared file system.
    return std::make_unique<TaskOutput>(tasks_dir, fmt::format("{}-{}-{}", host, rank_token(), index));
}

TaskOutputPool::~TaskOutputPool()
{
    free_.clear();  // this process's own scratch first, then what dead ones left
    if (!tasks_dir_.empty()) remove_dead_scratch(tasks_dir_, host_);
}

void TaskOutputPool::release(std::unique_ptr<TaskOutput> output)
{
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(output));
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

}  // namespace shardrun::tasks
