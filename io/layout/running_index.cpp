#include "io/layout/running_index.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::layout {
namespace {

std::optional<std::uint64_t> parse_id(const std::string& text)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    return std::stoull(text);
}

}  // namespace

std::string format_running(const RunningEntry& entry)
{
    const auto task = std::to_string(entry.task);
    return "#ask=" + task + "\nmember=" + std::to_string(entry.member) + "\nattempt=" + std::to_string(entry.attempt) +
           "\nhost=" + entry.host + "\nstdout=" + entry.stdout_path + "\nstderr=" + entry.stderr_path + "\nend=" + task +
           "\n";
}

std::optional<RunningEntry> parse_running(const std::string& text)
{
    if (text.rfind("task=", 0) != 0) return std::nullopt;  // '#': between tasks
    RunningEntry entry;
    std::optional<std::uint64_t> task;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto equals = line.find('=');
        if (equals == std::string::npos) return std::nullopt;
        const auto key = line.substr(0, equals);
        auto value = line.substr(equals + 1);
        if (key == "task") task = parse_id(value);
        if (key == "member") entry.member = std::atoi(value.c_str());
        if (key == "attempt") entry.attempt = std::atoi(value.c_str());
        if (key == "host") entry.host = std::move(value);
        if (key == "stdout") entry.stdout_path = std::move(value);
        if (key == "stderr") entry.stderr_path = std::move(value);
        if (key == "end") {
            // Whole only when the end line names the task the first line named.
            if (!task || parse_id(value) != task || entry.stdout_path.empty() || entry.stderr_path.empty()) break;
            entry.task = *task;
            return entry;
        }
    }
    return std::nullopt;
}

std::optional<RunningEntry> read_running_index(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return parse_running(std::string(std::istreambuf_iterator<char>(in), {}));
}

std::vector<RunningEntry> running_entries(const fs::path& tasks_dir)
{
    std::vector<RunningEntry> entries;
    std::error_code error;
    for (fs::directory_iterator it(tasks_dir, error), end; !error && it != end; it.increment(error)) {
        if (!is_running_index(it->path().filename().string())) continue;
        if (auto entry = read_running_index(it->path())) entries.push_back(std::move(*entry));
    }
    return entries;
}

std::optional<RunningEntry> find_running(const fs::path& tasks_dir, std::uint64_t task, int member)
{
    for (auto& entry : running_entries(tasks_dir)) {
        if (entry.task == task && entry.member == member) return std::move(entry);
    }
    return std::nullopt;
}

}  // namespace shardrun::io::layout
