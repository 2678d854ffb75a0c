#pragma once

#include <functional>

#include "collectives/communicator.hpp"

namespace shardrun::run {

/**
 * Runs `step` on every member of `comm` and agrees on the outcome. If it threw anywhere, every
 * member throws CollectiveFailure: the lowest failing rank carries the message to print, and
 * the exit code is 2 for bad input (UsageError, JobFileError, io::OutputError) and 1 otherwise.
 * So a bad job file ends every rank cleanly instead of leaving some waiting in a collective.
 * Collective over `comm`.
 */
void run_agreed(collectives::Communicator& comm, const std::function<void()>& step);

/** True when `mine` is true on any member of `comm`. Collective. */
bool any_member(collectives::Communicator& comm, bool mine);

}  // namespace shardrun::run
