#include "io/layout/run_end_reason.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "io/layout/output_layout.hpp"

namespace shardrun::io {
namespace {

constexpr std::string_view marker = "ended: ";
// Within the file's first block: writing there takes no new space from a full disk.
constexpr std::size_t max_file_bytes = 4000;

/** The lock file's first 4000 bytes; "" when it cannot be read. */
std::string lock_text(int fd)
{
    std::string text(max_file_bytes, '\0');
    const auto got = ::pread(fd, text.data(), text.size(), 0);
    text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    return text;
}

}  // namespace

void record_run_end_reason(const std::string& path, int array_index, const std::string& reason)
{
    // Best effort: the rank is ending on an error already; a reason not kept is only not said later.
    const int fd = ::open(layout::lock_path(path, array_index).c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    const int reader = ::open(layout::lock_path(path, array_index).c_str(), O_RDONLY | O_CLOEXEC);
    const auto text = reader < 0 ? std::string() : lock_text(reader);
    if (reader >= 0) ::close(reader);
    const auto holder_end = text.find('\n');
    // The holder's line stays; an empty lock file (its line was never written) has no block to use.
    if (holder_end != std::string::npos) {
        std::string line = std::string(marker) + reason;
        std::replace_if(line.begin(), line.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
        line = line.substr(0, max_file_bytes - holder_end - 2) + "\n";
        const auto offset = static_cast<off_t>(holder_end + 1);
        if (::pwrite(fd, line.data(), line.size(), offset) == static_cast<ssize_t>(line.size())) {
            if (::ftruncate(fd, offset + static_cast<off_t>(line.size())) != 0) {
                // A longer reason of an earlier rank may trail it; the reader takes the line alone.
            }
        }
    }
    ::close(fd);
}

std::string run_end_reason(const std::string& path, int array_index)
{
    const int fd = ::open(layout::lock_path(path, array_index).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    const auto text = lock_text(fd);
    ::close(fd);
    const auto holder_end = text.find('\n');
    if (holder_end == std::string::npos || text.compare(holder_end + 1, marker.size(), marker) != 0) return "";
    const auto start = holder_end + 1 + marker.size();
    const auto end = text.find('\n', start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace shardrun::io
