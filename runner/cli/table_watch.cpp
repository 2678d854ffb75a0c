// `shardrun table --watch SECONDS`: the table of a running job, reprinted until the run ends.
#include "runner/cli/table_watch.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <thread>

#include "io/read/live_snapshot.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int) { stop_requested = 1; }

/** Waits `seconds`, waking every 50 ms to see whether Ctrl-C came. */
void pause_for(double seconds)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!stop_requested && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

}  // namespace

double parse_watch_seconds(const std::string& text)
{
    std::size_t used = 0;
    double seconds = 0;
    try {
        seconds = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(seconds) || seconds <= 0) {
        SHARDRUN_THROW(UsageError, "table: --watch " + text + ": give the seconds between tables, a number above 0 "
                                   "(e.g. 30 or 0.5)");
    }
    return seconds;
}

int watch_table(const std::string& path, double seconds, const std::function<std::string(const io::ResultsTable&)>& render,
                const std::function<int()>& final_table)
{
    // Ctrl-C ends the watching between two snapshots, so the one being written is removed.
    std::signal(SIGINT, request_stop);
    std::signal(SIGTERM, request_stop);
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
    bool watched = false;
    while (!stop_requested) {
        auto live = io::LiveSnapshot::take(path, io::SnapshotFields::scalar);
        if (!live) break;
        auto read = io::read_results_table(live->file().string());
        read.path = path;
        const auto text = render(read);
        if (terminal) std::cout << "\033[H\033[2J";
        std::cout << io::running_line(live->committed(), live->task_count()) << " (every " << seconds
                  << " s; Ctrl-C stops)\n"
                  << text << "\n"
                  << std::flush;
        live.reset();
        watched = true;
        pause_for(seconds);
    }
    if (stop_requested) return exit_ok;
    // Not running when asked: the plain table, with no word about a run that was never seen.
    if (watched) std::cout << "run ended: " << path << "\n" << std::flush;
    return final_table();
}

}  // namespace shardrun::cli
