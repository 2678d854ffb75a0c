#include "runner/process/worker_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <vector>

namespace shardrun::process {
namespace {

constexpr off_t tail_bytes = 4096;

void write_all(int fd, std::string_view text)
{
    while (!text.empty()) {
        const auto written = write(fd, text.data(), text.size());
        if (written <= 0) return;
        text.remove_prefix(static_cast<size_t>(written));
    }
}

std::string read_tail(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return {};
    const off_t size = lseek(fd, 0, SEEK_END);
    const off_t from = size > tail_bytes ? size - tail_bytes : 0;
    std::string text(static_cast<size_t>(size - from), '\0');
    const auto got = pread(fd, text.data(), text.size(), from);
    close(fd);
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
    return text;
}

}  // namespace

void append_worker_note(const std::string& log_path, std::string_view note)
{
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return;
    std::string line = "shardrun: ";
    line.append(note);
    line += '\n';
    write_all(fd, line);
    close(fd);
}

std::string worker_log_tail(const std::string& log_path, std::size_t lines)
{
    const auto text = read_tail(log_path);
    std::vector<std::string_view> kept;
    std::string_view rest(text);
    while (!rest.empty() && kept.size() < lines) {
        if (rest.back() == '\n') rest.remove_suffix(1);
        const auto cut = rest.rfind('\n');
        const auto line = cut == std::string_view::npos ? rest : rest.substr(cut + 1);
        // shardrun's own notes are in the log for the reader of the file; a message quotes the worker.
        if (!line.empty() && line.rfind("shardrun: ", 0) != 0) kept.insert(kept.begin(), line);
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(0, cut);
    }
    std::string joined;
    for (const auto& line : kept) {
        if (!joined.empty()) joined += " | ";
        joined.append(line);
    }
    return joined;
}

std::string worker_log_path(const std::string& tasks_dir, int rank)
{
    return tasks_dir + "/worker-rank" + std::to_string(rank) + ".log";
}

void write_task_stderr(const std::string& task_dir, const std::string& log_path)
{
    if (task_dir.empty()) return;
    std::error_code ignored;
    std::filesystem::create_directories(task_dir, ignored);
    const auto path = task_dir + "/stderr";
    std::filesystem::remove(path, ignored);  // a symlink planted there is removed, never followed
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return;
    write_all(fd, read_tail(log_path));
    close(fd);
}

}  // namespace shardrun::process
