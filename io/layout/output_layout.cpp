#include "io/layout/output_layout.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <fstream>

#include "io/errors.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::layout {

fs::path shards_dir(const std::string& path) { return fs::path(path + ".shards"); }
std::string element_name(const std::string& index) { return "a" + index; }
fs::path element_dir(const std::string& path, int array_index)
{
    return shards_dir(path) / element_name(std::to_string(array_index));
}
fs::path lock_path(const std::string& path, int array_index)
{
    return shards_dir(path) / (element_name(std::to_string(array_index)) + ".lock");
}
fs::path manifest_path(const std::string& path, int array_index) { return element_dir(path, array_index) / "element.json"; }
fs::path params_path(const std::string& path, int array_index) { return element_dir(path, array_index) / "params.h5"; }
fs::path single_path(const std::string& path, int array_index) { return element_dir(path, array_index) / "single.h5"; }
fs::path rank_dir(const std::string& path, int array_index, int rank)
{
    return element_dir(path, array_index) / ("r" + std::to_string(rank));
}

fs::path segment_path(const fs::path& rank_dir, long seq)
{
    char name[32];
    std::snprintf(name, sizeof name, "%08ld.h5", seq);
    return rank_dir / name;
}

fs::path tasks_dir(const std::string& path) { return fs::path(path + ".tasks"); }

fs::path checkpoint_dir(const fs::path& tasks_dir, unsigned long long task_id)
{
    return tasks_dir / std::to_string(task_id) / "checkpoint";
}

fs::path task_stderr_path(const std::string& path, unsigned long long task_id)
{
    return tasks_dir(path) / std::to_string(task_id) / "stderr";
}

fs::path member_dir(const fs::path& task_dir, int member) { return task_dir / ("member" + std::to_string(member)); }

bool is_member_dir(const std::string& name) { return name.rfind("member", 0) == 0; }

/** Scratch files and folders start with a dot: `ls` and the tasks' readers pass them by. */
constexpr const char* scratch_start = ".scratch-";


fs::path scratch_path(const fs::path& tasks_dir, const std::string& slot, const std::string& kind)
{
    return tasks_dir / (std::string(scratch_start) + slot + "." + kind);
}

fs::path running_index_path(const fs::path& tasks_dir, const std::string& slot)
{
    return scratch_path(tasks_dir, slot, "running");
}

bool is_running_index(const std::string& name)
{
    constexpr std::string_view kind = ".running";
    return name.rfind(scratch_start, 0) == 0 && name.size() > kind.size() &&
           name.compare(name.size() - kind.size(), kind.size(), kind) == 0;
}

std::string scratch_prefix(const std::string& host) { return std::string(scratch_start) + host + "-"; }

fs::path submit_dir(const std::string& path) { return fs::path(path + ".submit"); }

long parse_indexed(const std::string& name, char prefix)
{
    if (name.size() < 2 || name[0] != prefix) return -1;
    if (!std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; })) return -1;
    return std::stol(name.substr(1));
}

namespace {

std::vector<int> indexed_dirs(const fs::path& parent, char prefix)
{
    std::vector<int> indexes;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(parent, error)) {
        const long index = parse_indexed(entry.path().filename().string(), prefix);
        if (index >= 0 && entry.is_directory()) indexes.push_back(static_cast<int>(index));
    }
    std::sort(indexes.begin(), indexes.end());
    return indexes;
}

}  // namespace

long element_index(const std::string& name) { return parse_indexed(name, 'a'); }

std::vector<int> element_indexes(const std::string& path) { return indexed_dirs(shards_dir(path), 'a'); }
std::vector<int> rank_indexes(const std::string& path, int array_index)
{
    return indexed_dirs(element_dir(path, array_index), 'r');
}

std::vector<fs::path> segments(const fs::path& rank_dir)
{
    std::vector<fs::path> found;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(rank_dir, error)) {
        const auto name = entry.path().filename().string();
        // Exactly "<8+ digits>.h5": temporaries ("....h5.tmp") are torn commits.
        if (name.size() > 3 && name.ends_with(".h5") && parse_indexed("s" + name.substr(0, name.size() - 3), 's') >= 0) {
            found.push_back(entry.path());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

bool lock_held(const std::string& path, int array_index)
{
    const int fd = ::open(lock_path(path, array_index).c_str(), O_RDONLY | O_CLOEXEC);  // read-only: a reader changes nothing
    if (fd < 0) return false;
    // Our own probe would conflict with the holder; a lock we get is released by close().
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0;
    ::close(fd);
    return held;
}

std::string lock_holder(int fd)
{
    char text[512] = {};
    const auto got = ::pread(fd, text, sizeof text - 1, 0);
    if (got <= 0) return "";
    std::string line(text, static_cast<std::size_t>(got));
    line = line.substr(0, line.find('\n'));
    for (auto& c : line) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    return line;
}

bool sync_path(const fs::path& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = ::fsync(fd) == 0;
    ::close(fd);
    return ok;
}

void clear_for_create(const fs::path& path)
{
    std::error_code error;
    const auto status = fs::symlink_status(path, error);
    if (!error && status.type() != fs::file_type::not_found && status.type() != fs::file_type::directory) {
        fs::remove(path, error);  // removes a symlink itself, never its target
    }
}

void write_file_atomically(const fs::path& target, const std::string& text)
{
    const fs::path temp = target.string() + ".tmp";
    clear_for_create(temp);
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool written = fd >= 0;
    for (std::size_t done = 0; written && done < text.size();) {
        const auto n = ::write(fd, text.data() + done, text.size() - done);
        written = n > 0;
        done += written ? static_cast<std::size_t>(n) : 0;
    }
    // A page cache that took the bytes may still fail at the fsync (a full disk on NFS).
    written = written && ::fsync(fd) == 0;
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    const std::string then =
        "check free space and permissions of " + target.parent_path().string() + ", then rerun with --resume";
    if (!written) {
        if (fd >= 0) std::remove(temp.c_str());
        throw_write_error("cannot write " + temp.string(), saved, then);
    }
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
        const int renamed = errno;
        std::remove(temp.c_str());
        throw_write_error("cannot write " + target.string(), renamed, then);
    }
    sync_path(target.parent_path());
}

void throw_write_error(const std::string& what, int error_number, const std::string& then)
{
    const std::string message = what + ": " + std::strerror(error_number) + "; " + then;
    switch (error_number) {
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
    case EIO:
        SHARDRUN_THROW(WriteError, message);
    default:
        SHARDRUN_THROW(OutputError, message);
    }
}

}  // namespace shardrun::io::layout
