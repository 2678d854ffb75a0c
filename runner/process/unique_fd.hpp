#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace shardrun::process {

/** One file descriptor, closed when this goes (unless released). Move-only. */
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept
    {
        reset(other.release());
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    int get() const noexcept { return fd_; }
    /** Gives the descriptor up without closing it. */
    int release() noexcept { return std::exchange(fd_, -1); }
    /** Closes the one held (if any) and holds `fd`. */
    void reset(int fd = -1) noexcept
    {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

/** pipe2(O_CLOEXEC) into two owned ends; false, with errno set, when it fails. */
inline bool make_pipe(UniqueFd& read_end, UniqueFd& write_end) noexcept
{
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) return false;
    read_end.reset(ends[0]);
    write_end.reset(ends[1]);
    return true;
}

}  // namespace shardrun::process
