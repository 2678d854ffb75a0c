#include "runner/process/live_index.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace shardrun::process {

LiveIndex::LiveIndex(std::string path) : path_(std::move(path))
{
    // O_EXCL after an unlink: a file left by a killed process of the same name (its pid) is
    // replaced, and a symlink planted there is never written through.
    ::unlink(path_.c_str());
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ >= 0) idle();
}

LiveIndex::~LiveIndex()
{
    if (fd_ < 0) return;
    ::close(fd_);
    ::unlink(path_.c_str());
}

void LiveIndex::running(const LiveEntry& entry)
{
    if (fd_ < 0) return;
    const auto text = io::layout::format_running(entry);  // begins with '#': not running yet
    if (::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return;
    ::pwrite(fd_, "t", 1, 0);
}

void LiveIndex::idle()
{
    if (fd_ >= 0) ::pwrite(fd_, "#", 1, 0);
}

}  // namespace shardrun::process
