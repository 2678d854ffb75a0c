#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/gpu_usage.hpp"
#include "runner/env/rapl_energy.hpp"
#include "runner/job/cost_spec.hpp"

namespace shardrun::run {

/**
 * Energy and money per task (issue 38, point 3): the CPUs' energy (RAPL, where readable) and
 * the job's price, over the task's time. A task's share of its node is 1 / the tasks the node
 * runs at once (ranks x slots): RAPL counts the whole node, and a node-hour is the node's.
 */
class TaskCost {
public:
    /**
     * @param gpus  GPUs one task uses (0 on the CPU)
     * @param node_share  the task's share of its node's CPUs and price, 0..1
     * @param rapl  the node's CPU energy counters, or null
     */
    TaskCost(job::PriceSpec price, int gpus, double node_share, std::unique_ptr<env::RaplEnergy> rapl);

    /** What a task's start is compared with at its end. */
    struct Start {
        std::vector<std::uint64_t> rapl;
    };
    Start start() const;
    /**
     * Fills usage's cpu_energy_j, total_energy_j (the GPU's energy_j plus the CPU's share, what
     * is known of them) and cost_usd (where the job has a price).
     */
    void fill(const Start& start, double seconds, io::TaskGpuUsage& usage) const;

private:
    job::PriceSpec price_;
    int gpus_;
    double node_share_;
    std::unique_ptr<env::RaplEnergy> rapl_;
};

}  // namespace shardrun::run
