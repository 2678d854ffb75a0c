#include "runner/process/stdout_answer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace shardrun::process {
namespace {

// A chatty worker's progress output is read once and dropped; only a line's first bytes matter.
constexpr std::size_t longest_kept_line = 1 << 16;
constexpr off_t read_at_most = 1 << 20;

}  // namespace

off_t log_size(const std::string& log_path)
{
    struct stat info {};
    return stat(log_path.c_str(), &info) == 0 ? info.st_size : 0;
}

std::optional<StdoutAnswer> stdout_answer(std::string_view line)
{
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] != '{') return std::nullopt;
    const auto json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_discarded() || !json.is_object()) return std::nullopt;
    StdoutAnswer answer;
    answer.ready = json.contains("ready");
    if (!answer.ready && !(json.contains("task_id") && json.contains("status"))) return std::nullopt;
    if (const auto id = json.find("task_id"); id != json.end() && id->is_number_unsigned()) {
        answer.task_id = id->get<std::uint64_t>();
    }
    answer.hint = fmt::format("the worker wrote its {} on stdout; shardrun reads answers only on file descriptor "
                              "$SHARDRUN_ANSWER_FD (fd 3), e.g. os.fdopen(int(os.environ[\"SHARDRUN_ANSWER_FD\"]), \"w\") "
                              "or the shardrun Python package (scripts/python)",
                              answer.ready ? "ready line" : "answer");
    return answer;
}

std::optional<StdoutAnswer> StdoutAnswerWatch::next()
{
    const off_t size = log_size(path_);
    if (size < offset_) offset_ = size;  // truncated under us: read on from its end
    if (size == offset_) return std::nullopt;
    const int fd = open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::string text(static_cast<std::size_t>(std::min(size - offset_, read_at_most)), '\0');
    const auto got = pread(fd, text.data(), text.size(), offset_);
    close(fd);
    if (got <= 0) return std::nullopt;
    offset_ += got;
    text.resize(static_cast<std::size_t>(got));
    partial_ += text;
    std::optional<StdoutAnswer> found;
    std::size_t start = 0;
    for (auto end = partial_.find('\n'); end != std::string::npos; end = partial_.find('\n', start)) {
        if (!found) found = stdout_answer(std::string_view(partial_).substr(start, end - start));
        start = end + 1;
    }
    partial_.erase(0, start);
    if (partial_.size() > longest_kept_line) partial_.clear();
    return found;
}

}  // namespace shardrun::process
