#pragma once

// @internal scheduler_sim.cpp's dynamic schedule with the runner's adaptive claims (adaptive_sim.cpp).

#include <cstdint>
#include <vector>

#include "scheduler_sim.hpp"

namespace shardrun::bench::scheduler {

/** @param starts  the first id of every claim block, then T (placement::ClaimSequence) */
SimResult simulate_adaptive(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                            const ClaimCosts& costs, const std::vector<std::uint64_t>& starts);

}  // namespace shardrun::bench::scheduler
