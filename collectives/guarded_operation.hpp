#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * One collective of a StallGuard (stall_guard.hpp): `operation`, its deadline (`timeout`
 * seconds; 0 or less: none), and once it is still pending after the arm interval, the arrival
 * notes and the answers to pings. Past the deadline its wait throws CollectiveStall naming the
 * members that do not answer.
 * @param noted  per member, the highest sequence it noted (shared by the guard's collectives)
 */
Request guarded_operation(Communicator& comm, Request operation, const char* name, std::size_t bytes,
                          std::int64_t sequence, double timeout, std::vector<std::int64_t>& noted,
                          const std::vector<std::string>& members, const std::string& group);

/** Takes in every arrival note that waits, keeping the highest sequence each member noted. */
void collect_notes(Communicator& comm, std::vector<std::int64_t>& noted);

}  // namespace shardrun::collectives
