#pragma once

#include <cstdint>
#include <string>

namespace shardrun::cli {

/** Which output of which task `shardrun logs` prints. */
struct LogTarget {
    std::string output;     ///< the results path (its <output>.tasks/ holds the files)
    std::uint64_t task = 0;
    int attempt = 0;        ///< 0: the latest
    int member = 0;         ///< 0: the leader (the task folder itself)
    bool stderr_stream = false;
};

/**
 * Prints what the task wrote so far: the running attempt's live file, else the kept one.
 * @return false when neither exists (the task has not run, or wrote nothing to that stream)
 */
bool print_log(const LogTarget& target);

/**
 * Prints the output and then every new byte as the task writes it (polled every 50 ms)
 * until the task ends: its attempt is over and no retry started within a second. A task
 * that has not started yet is waited for while a run holds the output's lock.
 * @return false when the task never wrote to that stream
 */
bool follow_log(const LogTarget& target);

/**
 * True when the task's running index is left by a run that no longer holds the output (its
 * rank was killed): the attempt it names will never end, and nothing of it was kept.
 */
bool left_by_a_dead_run(const LogTarget& target);

}  // namespace shardrun::cli
