#include "runner/run/loop/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "runner/core/periodic_thread.hpp"
#include "runner/errors.hpp"

namespace shardrun::run {
namespace {

using Clock = std::chrono::steady_clock;

std::string eta_text(double seconds)
{
    if (!(seconds >= 0) || seconds > 1e8) return "?";
    const auto s = static_cast<long>(seconds + 0.5);
    return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s / 60 % 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

}  // namespace

ProgressMode parse_progress_mode(const std::string& text)
{
    if (text == "auto") return ProgressMode::automatic;
    if (text == "tty") return ProgressMode::tty;
    if (text == "plain") return ProgressMode::plain;
    if (text == "json") return ProgressMode::json;
    if (text == "quiet") return ProgressMode::quiet;
    SHARDRUN_THROW(UsageError, fmt::format("--progress={}: allowed: auto, tty, plain, json, quiet", text));
}

ProgressReporter::ProgressReporter(ProgressMode mode, double interval_seconds, std::int64_t total, std::int64_t skipped)
    : mode_(mode), interval_seconds_(interval_seconds), total_(total), skipped_(skipped), started_(Clock::now()),
      last_draw_(started_)
{
    if (mode_ == ProgressMode::automatic) mode_ = isatty(STDERR_FILENO) ? ProgressMode::tty : ProgressMode::plain;
    if (mode_ == ProgressMode::tty) interval_seconds_ = std::min(interval_seconds_, 0.5);
}

std::string ProgressReporter::line(const ProgressCounts& counts, double elapsed) const
{
    const auto done = counts.ok + counts.failed;
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
    const auto left = total_ - skipped_ - done;
    // The words of README's "Task states": an interrupted task is not done (--resume runs
    // it), and a task an earlier run finished is "already done".
    if (mode_ == ProgressMode::json) {
        return fmt::format(R"({{"event":"progress","done":{},"ok":{},"failed":{},"interrupted":{},"running":{},"already_done":{},"total":{},"tasks_per_s":{:.3f},"elapsed_s":{:.3f},"eta_s":{:.1f}}})",
                           done + skipped_, counts.ok, counts.failed, counts.interrupted, counts.running, skipped_,
                           total_, rate, elapsed, rate > 0 ? static_cast<double>(left) / rate : -1.0);
    }
    return fmt::format("[{:>6.1f}s] done {}/{} ({} ok, {} failed{}){}, running {}, {:.1f} tasks/s, ETA {}", elapsed,
                       done + skipped_, total_, counts.ok, counts.failed,
                       skipped_ ? fmt::format(", {} already done", skipped_) : "",
                       counts.interrupted ? fmt::format(", {} interrupted", counts.interrupted) : "", counts.running,
                       rate, rate > 0 ? eta_text(static_cast<double>(left) / rate) : "?");
}

void ProgressReporter::update(const ProgressCounts& counts, bool final)
{
    if (mode_ == ProgressMode::quiet) return;
    const auto now = Clock::now();
    if (!final && std::chrono::duration<double>(now - last_draw_).count() < interval_seconds_) return;
    last_draw_ = now;
    const auto text = line(counts, std::chrono::duration<double>(now - started_).count());
    if (mode_ == ProgressMode::json) {
        std::printf("%s\n", text.c_str());
        std::fflush(stdout);
    } else if (mode_ == ProgressMode::tty) {
        std::fprintf(stderr, "\r\033[K%s%s", text.c_str(), final ? "\n" : "");
    } else {
        std::fprintf(stderr, "%s\n", text.c_str());
    }
}

void ProgressFeed::task_finished(bool ok, bool interrupted)
{
    --running_;
    ++(interrupted ? interrupted_ : ok ? ok_ : failed_);
}

void ProgressFeed::tick(bool force)
{
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
    auto last = last_push_ns_.load();
    if (!force && now - last < 200'000'000) return;
    // One thread pushes at a time; the others find the slot taken and leave it to it.
    if (!last_push_ns_.compare_exchange_strong(last, now) && !force) return;
    const ProgressCounts delta{ok_.exchange(0), failed_.exchange(0), running_.exchange(0), interrupted_.exchange(0)};
    if (delta.ok == 0 && delta.failed == 0 && delta.running == 0 && delta.interrupted == 0) return;
    counters_.add_progress(delta);
}

ProgressThread::ProgressThread(const WorkCounters& counters, ProgressReporter& reporter)
    : thread_(std::make_unique<core::PeriodicThread>(std::chrono::milliseconds(50), [&counters, &reporter] {
          reporter.update(counters.read_progress());
          return true;
      }))
{
}

ProgressThread::~ProgressThread() = default;

}  // namespace shardrun::run
