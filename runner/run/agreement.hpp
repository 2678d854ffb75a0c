#pragma once

#include <functional>

namespace shardrun::run {

/**
 * Runs `step` on every rank and agrees on the outcome. If it threw anywhere, every rank
 * throws CollectiveFailure: the lowest failing rank carries the message to print, and the
 * exit code is 2 for bad input (UsageError, JobFileError, io::OutputError) and 1 otherwise.
 * So a bad job file ends every rank cleanly instead of leaving some waiting in a collective.
 * Collective over MPI_COMM_WORLD.
 */
void run_agreed(const std::function<void()>& step);

}  // namespace shardrun::run
