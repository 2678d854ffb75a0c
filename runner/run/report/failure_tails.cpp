#include "runner/run/report/failure_tails.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>

namespace shardrun::run {
namespace {

constexpr std::streamoff tail_bytes = 8192;  // a few lines' worth, whatever the file's size
constexpr std::size_t line_chars = 200;

}  // namespace

std::vector<std::string> last_lines(const std::string& file, std::size_t count)
{
    std::ifstream in(file, std::ios::binary);
    if (!in || count == 0) return {};
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::streamoff>(in.tellg());
    const auto start = std::max<std::streamoff>(0, size - tail_bytes);
    in.seekg(start);
    std::deque<std::string> lines;
    bool first = true;
    for (std::string line; std::getline(in, line); first = false) {
        if (first && start > 0) continue;  // a line cut by the 8 KiB window
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.size() > line_chars) line = line.substr(0, line_chars) + "...";
        lines.push_back(std::move(line));
        if (lines.size() > count) lines.pop_front();
    }
    return {lines.begin(), lines.end()};
}

void add_stderr_tail(RankStats& stats, std::uint64_t task_id, const std::string& tasks_dir, std::size_t lines)
{
    if (stats.failures.empty() || stats.failures.size() > element_log_tasks) return;
    auto& failure = stats.failures.back();
    if (failure.task_id != task_id) return;
    failure.stderr_tail = last_lines(fmt::format("{}/{}/stderr", tasks_dir, task_id), lines);
}

std::string failed_tasks_block(const std::string& output, const std::vector<RankStats>& ranks)
{
    std::vector<const FailedTask*> failures;
    std::uint64_t failed = 0;
    for (const auto& rank : ranks) {
        failed += rank.failed;
        for (const auto& failure : rank.failures) failures.push_back(&failure);
    }
    if (failed == 0) return {};
    std::sort(failures.begin(), failures.end(), [](const auto* a, const auto* b) { return a->task_id < b->task_id; });
    std::ostringstream out;
    out << "shardrun: failed tasks' last stderr lines (a task's whole output: shardrun logs " << output
        << " ID --stderr):\n";
    const auto shown = std::min(failures.size(), element_log_tasks);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& failure = *failures[i];
        out << fmt::format("  task {}: {}\n", failure.task_id, failure.message);  // the message names the exit status
        for (const auto& line : failure.stderr_tail) out << "    | " << line << "\n";
    }
    if (failed > shown) out << fmt::format("  and {} more failed tasks: shardrun status {}\n", failed - shown, output);
    return out.str();
}

}  // namespace shardrun::run
