#include "runner/run/loop/task_cost.hpp"

#include <algorithm>
#include <cmath>

namespace shardrun::run {

TaskCost::TaskCost(job::PriceSpec price, int gpus, double node_share, std::unique_ptr<env::RaplEnergy> rapl)
    : price_(std::move(price)), gpus_(gpus), node_share_(node_share), rapl_(std::move(rapl))
{
}

TaskCost::Start TaskCost::start() const { return {rapl_ ? rapl_->read() : std::vector<std::uint64_t>{}}; }

void TaskCost::fill(const Start& start, double seconds, io::TaskGpuUsage& usage) const
{
    if (rapl_ && !start.rapl.empty()) usage.cpu_energy_j = rapl_->joules_between(start.rapl, rapl_->read()) * node_share_;
    const bool gpu = !std::isnan(usage.energy_j), cpu = !std::isnan(usage.cpu_energy_j);
    if (gpu || cpu) usage.total_energy_j = (gpu ? usage.energy_j : 0.0) + (cpu ? usage.cpu_energy_j : 0.0);
    if (price_.given()) {
        const double hours = std::max(0.0, seconds) / 3600.0;
        usage.cost_usd = hours * (price_.gpu_hour * gpus_ + price_.node_hour * node_share_);
    }
}

}  // namespace shardrun::run
