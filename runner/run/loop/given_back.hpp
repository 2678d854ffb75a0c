#pragma once

// Tasks a quarantined GPU's rank gave back (issue 26, point 3) run on the healthy ranks, in
// passes after the schedule's own loop: the same for static and dynamic schedules, since a
// static share has no other taker and a dynamic claim, once taken, is no one else's.
#include <string>

#include "collectives/communicator.hpp"
#include "io/result_sink.hpp"
#include "runner/run/loop/device_health.hpp"
#include "runner/run/loop/rank_loop_setup.hpp"

namespace shardrun::run {

/**
 * Collective over `world`. Gathers every rank's given-back tasks (stats.given_back) and whether
 * its GPU is quarantined; while some are left, hands them round-robin to the healthy ranks
 * (another rank than the giver where there is one) and runs them through `loop`, adding the
 * counts to `stats`. Ends when nothing is given back, when a drain or stop closes the claims
 * (the tasks are left for --resume), or when every rank's GPU is quarantined.
 * @param health  this rank's watch, nullptr when it has none (CPU, groups)
 * @return "" normally; when every GPU was quarantined with tasks left, the summary's reason
 */
std::string run_given_back(collectives::Communicator& world, RankLoopSetup& loop, io::ResultSink& sink,
                           RankStats& stats, const DeviceHealth* health);

/** "first:count:stride;..." of `batches`, and back: how ranks tell each other their given-back tasks. */
std::string encode_batches(const std::vector<placement::IdBatch>& batches);
std::vector<placement::IdBatch> decode_batches(const std::string& text);

}  // namespace shardrun::run
