#include "runner/run/plan/plan_packing.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "runner/job/byte_size.hpp"

namespace shardrun::run {
namespace {

bool shown(const job::JobSpec& spec, const PlanNodes& nodes, const gpu::MigSplit& mig)
{
    return nodes.gpus_per_node > 0 && (spec.gpu_sharing.given || mig.per_gpu > 0);
}

std::string sharing_line(const job::GpuSharingSpec& sharing)
{
    if (!sharing.mps()) {
        return fmt::format("gpu_sharing: time (time slicing{})",
                           sharing.memory_bytes > 0 ? fmt::format("; gpu_memory {} per task, checked through telemetry",
                                                                  job::byte_size_text(sharing.memory_bytes))
                                                    : "");
    }
    return fmt::format("gpu_sharing: mps (one MPS daemon per node; each task CUDA_MPS_ACTIVE_THREAD_PERCENTAGE={}{})",
                       sharing.thread_percent,
                       sharing.memory_bytes > 0 ? fmt::format(", CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0={}",
                                                              job::byte_size_text(sharing.memory_bytes))
                                                : "");
}

// Ranks on node n, as plan fills nodes in rank order.
int ranks_on(int node, const PlanReport& report)
{
    return std::max(0, std::min(report.ranks_per_node, report.ranks - node * report.ranks_per_node));
}

std::string host_of(int node, const PlanNodes& nodes)
{
    return static_cast<size_t>(node) < nodes.hosts.size() ? nodes.hosts[static_cast<size_t>(node)]
                                                           : fmt::format("node{}", node);
}

}  // namespace

std::string packing_text(const job::JobSpec& spec, const PlanReport& report, const PlanNodes& nodes,
                         const gpu::MigSplit& mig)
{
    if (!shown(spec, nodes, mig)) return "";
    const int k = spec.gpu_sharing.tasks_per_gpu;
    std::string text = fmt::format("GPU packing: {} task{} at once per rank on its device; {}\n", k, k == 1 ? "" : "s",
                                   sharing_line(spec.gpu_sharing));
    for (int node = 0; node < report.nodes; ++node) {
        const int ranks = ranks_on(node, report);
        for (const auto& share : gpu::pack_node(ranks, nodes.gpus_per_node, mig)) {
            std::vector<int> world;
            for (int local : share.ranks) world.push_back(node * report.ranks_per_node + local);
            text += world.empty() ? fmt::format("  {} {}: idle (no rank)\n", host_of(node, nodes), share.device)
                                  : fmt::format("  {} {}: rank{} {} x {} slot{} = {} task{} at once\n",
                                                host_of(node, nodes), share.device, world.size() == 1 ? "" : "s",
                                                fmt::join(world, ","), k, k == 1 ? "" : "s",
                                                static_cast<int>(world.size()) * k,
                                                static_cast<int>(world.size()) * k == 1 ? "" : "s");
        }
    }
    return text;
}

nlohmann::json packing_json(const job::JobSpec& spec, const PlanReport& report, const PlanNodes& nodes,
                            const gpu::MigSplit& mig)
{
    if (!shown(spec, nodes, mig)) return nullptr;
    const auto& sharing = spec.gpu_sharing;
    auto devices = nlohmann::json::array();
    for (int node = 0; node < report.nodes; ++node) {
        for (const auto& share : gpu::pack_node(ranks_on(node, report), nodes.gpus_per_node, mig)) {
            std::vector<int> world;
            for (int local : share.ranks) world.push_back(node * report.ranks_per_node + local);
            devices.push_back({{"host", host_of(node, nodes)}, {"device", share.device}, {"ranks", world},
                               {"tasks_at_once", static_cast<int>(world.size()) * sharing.tasks_per_gpu}});
        }
    }
    return {{"tasks_per_gpu", sharing.tasks_per_gpu},
            {"gpu_sharing", sharing.mps() ? "mps" : "time"},
            {"gpu_threads", sharing.mps() ? nlohmann::json(sharing.thread_percent) : nlohmann::json(nullptr)},
            {"gpu_memory_bytes", sharing.memory_bytes > 0 ? nlohmann::json(sharing.memory_bytes) : nlohmann::json(nullptr)},
            {"devices", devices}};
}

}  // namespace shardrun::run
