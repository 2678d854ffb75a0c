#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardrun::io {

/**
 * What an element's files say about a run that ended without its ending (issue 35, point 7):
 * killed with every rank (mpirun ends the job within 2 s of one rank's death), or its host
 * crashed. Its manifest was never finished and no run holds its lock.
 */
struct UnfinishedRun {
    std::string holder;  ///< the lock file's line: "pid 4711 on node-a since 2026-11-28 19:20:00 UTC"
    std::vector<std::pair<int, double>> last_commits;  ///< per rank: its last committed segment (seconds since the epoch)
    std::string reason;  ///< the error that ended it, when a rank said it (run_end_reason.hpp); "" after a kill
    std::vector<std::uint64_t> running_tasks;  ///< exec tasks a slot's running index named when the run ended (.scratch-<slot>.running)
};

/** The unfinished run of element `array_index` of `path`; nullopt when it finished, runs now, or never started. */
std::optional<UnfinishedRun> unfinished_run(const std::string& path, int array_index);

/** "the last run ended without a summary ...: pid ... on ...; last commit per rank: ...; tasks running then: ..." */
std::string unfinished_run_line(const UnfinishedRun& run);

}  // namespace shardrun::io
