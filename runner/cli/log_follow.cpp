#include "runner/cli/log_follow.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "io/layout/output_layout.hpp"
#include "io/read/status_report.hpp"
#include "runner/process/live_index.hpp"

namespace shardrun::cli {
namespace {

using Clock = std::chrono::steady_clock;
// Well inside the 1 s within which `--follow` promises a new line.
constexpr auto poll_interval = std::chrono::milliseconds(50);

std::string folder_of(const LogTarget& target)
{
    const auto folder = io::layout::tasks_dir(target.output) / std::to_string(target.task);
    return (target.member > 0 ? io::layout::member_dir(folder, target.member) : folder).string();
}

const char* stream_of(const LogTarget& target) { return target.stderr_stream ? "stderr" : "stdout"; }

/** The kept file of `attempt` (0: the plain name, a link to the latest attempt's). */
std::string kept_path(const LogTarget& target, int attempt)
{
    return attempt > 0 ? fmt::format("{}/{}.{}", folder_of(target), stream_of(target), attempt)
                       : fmt::format("{}/{}", folder_of(target), stream_of(target));
}

/** The running attempt's index, when it is the one asked for and its live file is there. */
std::optional<process::LiveEntry> live(const LogTarget& target)
{
    auto entry = io::layout::find_running(io::layout::tasks_dir(target.output), target.task, target.member);
    if (!entry || (target.attempt > 0 && entry->attempt != target.attempt)) return std::nullopt;
    struct stat info {};
    // A killed run leaves its index behind; its scratch files are swept with it.
    if (stat((target.stderr_stream ? entry->stderr_path : entry->stdout_path).c_str(), &info) != 0) return std::nullopt;
    return entry;
}

/**
 * The index of a run that no longer holds the output (its rank was killed before it could
 * remove the index, issue 35, point 8): no element's lock is held, so nothing writes there.
 */
bool stale(const LogTarget& target) { return !io::output_running(target.output); }

/** Said when a followed attempt's run went away without ending it. */
void say_run_gone(const LogTarget& target)
{
    std::fflush(stdout);
    std::fprintf(stderr,
                 "shardrun: logs: task %llu's run ended without finishing it (no run holds %s: its rank was killed?); "
                 "its output so far is above; `shardrun run JOB --resume` runs it again\n",
                 static_cast<unsigned long long>(target.task), target.output.c_str());
}

std::string live_path(const LogTarget& target, const process::LiveEntry& entry)
{
    return target.stderr_stream ? entry.stderr_path : entry.stdout_path;
}

/** Copies `fd` from `offset` to its end onto stdout, flushed; returns the new offset. */
off_t pump(int fd, off_t offset)
{
    char buffer[65536];
    while (true) {
        const auto got = pread(fd, buffer, sizeof buffer, offset);
        if (got <= 0) break;
        std::fwrite(buffer, 1, static_cast<std::size_t>(got), stdout);
        offset += got;
    }
    std::fflush(stdout);
    return offset;
}

bool print_file(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    pump(fd, 0);
    close(fd);
    return true;
}

bool same_file(const std::string& path, int fd)
{
    struct stat kept {}, open_file {};
    return stat(path.c_str(), &kept) == 0 && fstat(fd, &open_file) == 0 && kept.st_ino == open_file.st_ino &&
           kept.st_dev == open_file.st_dev;
}

/** Follows one running attempt to its end; false when its live file was gone before it opened. */
bool follow_attempt(const LogTarget& target, const process::LiveEntry& entry)
{
    const int fd = open(live_path(target, entry).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    off_t offset = 0;
    // The lock is looked at once a second, not every poll: it opens a file per element.
    constexpr int polls_per_lock_check = 20;
    for (int poll = 1;; ++poll) {
        offset = pump(fd, offset);
        const auto now = live(target);
        if (!now || now->attempt != entry.attempt) break;
        if (poll % polls_per_lock_check == 0 && stale(target)) {
            close(fd);
            say_run_gone(target);
            return true;
        }
        std::this_thread::sleep_for(poll_interval);
    }
    // Ended. What it wrote last is in the same file, now kept as <stream>.<attempt>; a stream it
    // left empty stays the slot's, and the next task's lines are not this task's.
    if (same_file(kept_path(target, entry.attempt), fd)) pump(fd, offset);
    close(fd);
    return true;
}

/** A retry of the task that starts within a second of `attempt`'s end. */
std::optional<process::LiveEntry> next_attempt(const LogTarget& target, int attempt)
{
    const auto deadline = Clock::now() + std::chrono::seconds(1);
    while (Clock::now() < deadline) {
        if (auto entry = live(target); entry && entry->attempt > attempt) return entry;
        std::this_thread::sleep_for(poll_interval);
    }
    return std::nullopt;
}

}  // namespace

bool left_by_a_dead_run(const LogTarget& target) { return live(target).has_value() && stale(target); }

bool print_log(const LogTarget& target)
{
    // A stale index's scratch file may hold the next task's lines once a run reuses the slot: only the kept file counts.
    if (const auto entry = live(target); entry && !stale(target) && print_file(live_path(target, *entry))) return true;
    return print_file(kept_path(target, target.attempt));
}

bool follow_log(const LogTarget& target)
{
    auto entry = live(target);
    if (entry && stale(target)) entry.reset();
    while (!entry) {
        // Not running: a task that ran shows what it kept; one not started yet is waited for while the run goes on.
        if (print_file(kept_path(target, target.attempt))) return true;
        if (!io::output_running(target.output)) return false;
        std::this_thread::sleep_for(poll_interval);
        entry = live(target);
    }
    bool printed = false;
    while (entry) {
        printed = follow_attempt(target, *entry) || printed;
        if (target.attempt > 0) break;
        entry = next_attempt(target, entry->attempt);
    }
    return printed;
}

}  // namespace shardrun::cli
