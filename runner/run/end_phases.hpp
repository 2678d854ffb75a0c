#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shardrun::run {

/** One phase of a run's end (README, "The end of a run"): its name and how long it took. */
struct EndPhase {
    std::string name;  ///< wind_down | last_commit | master | consolidation | teardown | mpi_finalize
    double seconds = 0;
    std::uint64_t bytes = 0;  ///< master: the file's size, so its write can be set against the disk's speed
};

/**
 * Times the end of a run, phase after phase, from the job's last task's end to MPI_Finalize's
 * return. Each phase begins where the one before it ended (the first at the last task's end), so
 * the phases add up to the whole. Every rank keeps one; rank 0's goes into the summary.
 */
class EndPhases {
public:
    using Clock = std::chrono::steady_clock;

    /** @param on_phase  called as each phase ends (--progress json prints it at once), or empty */
    explicit EndPhases(std::function<void(const EndPhase&)> on_phase = {}) : on_phase_(std::move(on_phase)) {}

    /**
     * The first phase ends now. It began at `last_task_end` (Unix seconds, the latest over the
     * ranks, maybe another host's clock: never below 0), or, when no task ended in this run, now.
     * Its last `handed_on` seconds (the last rank's final commit, inside its loop) go to the next phase.
     */
    void start(const std::string& name, double last_task_end, double handed_on = 0);
    /** The phase that began where the last one ended ends now. */
    void mark(const std::string& name);
    /** A phase measured by its doer (`seconds`), after the last mark: the next mark begins after it. */
    void add(const std::string& name, double seconds, std::uint64_t bytes = 0);

    const std::vector<EndPhase>& phases() const noexcept { return phases_; }
    double total_seconds() const noexcept;

private:
    void record(EndPhase phase);

    std::function<void(const EndPhase&)> on_phase_;
    std::vector<EndPhase> phases_;
    Clock::time_point cursor_{};
};

/** {"event":"end_phase","phase":...,"seconds":...} for --progress json (the master's with "bytes"). */
std::string end_phase_json(const EndPhase& phase);

/** The summary's line: "  end: 0.31 s after the last task: wind-down 0.01 s, ..." (with newline; "" when none). */
std::string end_phases_line(const std::vector<EndPhase>& phases);

}  // namespace shardrun::run
