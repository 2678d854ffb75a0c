#include "runner/env/info_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

namespace shardrun::env {
namespace {

std::vector<std::string> distinct_hosts(const std::vector<RankRow>& rows)
{
    std::set<std::string> seen;
    std::vector<std::string> hosts;
    for (const auto& row : rows) {
        if (seen.insert(row.host).second) hosts.push_back(row.host);
    }
    return hosts;
}

std::string optional_text(const std::optional<long>& value)
{
    return value ? std::to_string(*value) : "-";
}

nlohmann::json optional_json(const std::optional<long>& value)
{
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::string info_table(const RunEnvironment& environment, const std::vector<RankRow>& rows)
{
    const auto& topo = environment.topology;
    const auto& sched = environment.scheduler;
    const auto& build = environment.build;
    const auto hosts = distinct_hosts(rows);
    std::string out = fmt::format("shardrun {} ({}): {} rank{} on {} node{}\n", build.version, build.git_commit,
                                  topo.world_size, topo.world_size == 1 ? "" : "s", topo.node_count,
                                  topo.node_count == 1 ? "" : "s");
    out += fmt::format("  scheduler   {}{}{}\n", sched.name,
                       sched.launcher.empty() ? "" : " (launched by " + sched.launcher + ")",
                       sched.job_id.empty() ? "" : ", job " + sched.job_id);
    out += fmt::format("  array       element {} of {} ({})\n", environment.array.index, environment.array.count,
                       environment.array.source);
    if (sched.node_index || sched.node_count) {
        out += fmt::format("  batch node  {} of {} (main node {})\n", optional_text(sched.node_index),
                           optional_text(sched.node_count), optional_text(sched.main_node_index));
    }
    out += fmt::format("  nodes       {}\n", fmt::join(hosts, ", "));
    out += fmt::format("  GPUs        {} visible{}\n", build.cuda_devices,
                       build.cuda_devices == 0 ? " (" + build.no_device_reason + ")" : "");
    out += fmt::format("\n  {:>5}  {:<24} {:>7}  {}\n", "rank", "host", "local", "device");
    for (const auto& row : rows) {
        out += fmt::format("  {:>5}  {:<24} {:>7}  {}\n", row.rank, row.host,
                           fmt::format("{}/{}", row.local_rank, row.local_size), row.device);
    }
    out += fmt::format("\n  build         CUDA {}, NCCL {}, HDF5 parallel {}\n", build.cuda ? "on" : "off",
                       build.nccl ? "on" : "off", build.hdf5_parallel ? "yes" : "no");
    for (const auto& [library, version] : build.libraries) {
        out += fmt::format("  {:<13} {}\n", library, version);
    }
    return out;
}

std::string info_json(const RunEnvironment& environment, const std::vector<RankRow>& rows)
{
    const auto& sched = environment.scheduler;
    const auto& build = environment.build;
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& row : rows) {
        ranks.push_back({{"rank", row.rank}, {"host", row.host}, {"local_rank", row.local_rank},
                         {"local_size", row.local_size}, {"device", row.device}});
    }
    nlohmann::json libraries = nlohmann::json::object();
    for (const auto& [library, version] : build.libraries) libraries[library] = version;
    const nlohmann::json report = {
        {"version", build.version},
        {"git_commit", build.git_commit},
        {"world_size", environment.topology.world_size},
        {"nodes", environment.topology.node_count},
        {"hosts", distinct_hosts(rows)},
        {"scheduler",
         {{"name", sched.name}, {"launcher", sched.launcher}, {"job_id", sched.job_id},
          {"node_index", optional_json(sched.node_index)}, {"node_count", optional_json(sched.node_count)},
          {"main_node_index", optional_json(sched.main_node_index)}}},
        {"array",
         {{"index", environment.array.index}, {"count", environment.array.count},
          {"source", environment.array.source}}},
        {"ranks", ranks},
        {"build",
         {{"cuda", build.cuda}, {"nccl", build.nccl}, {"hdf5_parallel", build.hdf5_parallel},
          {"cuda_devices", build.cuda_devices}, {"no_device_reason", build.no_device_reason},
          {"libraries", libraries}}},
    };
    return report.dump(2) + "\n";
}

}  // namespace shardrun::env
