#include "runner/process/task_output.hpp"

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

#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/process/scratch_sweep.hpp"
#include "runner/process/task_folder.hpp"

namespace shardrun::process {
namespace {

constexpr const char* stream_names[2] = {"stdout", "stderr"};

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

TaskOutput::TaskOutput(std::string tasks_dir, std::string name) : tasks_dir_(std::move(tasks_dir)), name_(std::move(name))
{
    for (int stream : {0, 1}) scratch_paths_[stream] = io::layout::scratch_path(tasks_dir_, name_, stream_names[stream]).string();
    open_scratch(0);
    try {
        open_scratch(1);
    } catch (...) {
        close_scratch(0);
        throw;
    }
    index_ = std::make_unique<LiveIndex>(io::layout::running_index_path(tasks_dir_, name_).string());
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
    auto path = io::layout::scratch_path(tasks_dir_, name_, "results").string();
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

void TaskOutput::open_scratch(int stream)
{
    const auto& path = scratch_path(stream);
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

std::string TaskOutput::keep(const std::string& task_dir, int attempt)
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
        const auto own = fmt::format("{}.{}", stream_names[stream], attempt);
        if (renameat(AT_FDCWD, scratch_path(stream).c_str(), dir_fd, own.c_str()) != 0) {
            error = fmt::format("cannot keep {}/{}: {}", task_dir, own, errno_text(errno));
            break;
        }
        close(fds_[stream]);
        fds_[stream] = -1;
        open_scratch(stream);
        // The plain name follows the latest attempt: a link made aside, then renamed over the old one.
        const auto aside = fmt::format(".{}.link", stream_names[stream]);
        unlinkat(dir_fd, aside.c_str(), 0);
        if (linkat(dir_fd, own.c_str(), dir_fd, aside.c_str(), 0) != 0 ||
            renameat(dir_fd, aside.c_str(), dir_fd, stream_names[stream]) != 0) {
            error = fmt::format("cannot link {}/{} to {}: {}", task_dir, stream_names[stream], own, errno_text(errno));
            break;
        }
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

}  // namespace shardrun::process
