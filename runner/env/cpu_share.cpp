#include "runner/env/cpu_share.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <span>
#include <sstream>
#include <string>

namespace shardrun::env {

namespace {

std::string first_line(const std::string& path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// The cgroup path of `controller` ("" for v2's unified line) in /proc/self/cgroup; "/" when absent.
std::string cgroup_path(const std::string& controller)
{
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
        const auto first = line.find(':');
        const auto second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos) continue;
        std::stringstream names(line.substr(first + 1, second - first - 1));
        for (std::string name; std::getline(names, name, ',');) {
            if (name == controller) return line.substr(second + 1);
        }
        if (controller.empty() && second == first + 1) return line.substr(second + 1);
    }
    return "/";
}

std::optional<long> number(std::string_view text)
{
    long value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    return value;
}

}  // namespace

std::optional<int> quota_cpus_of(std::string_view quota, std::string_view period)
{
    const auto q = number(quota);
    const auto p = number(period);
    if (!q || !p || *q <= 0 || *p <= 0) return std::nullopt;  // "max", -1: no quota
    return static_cast<int>(std::max(1L, (*q + *p - 1) / *p));
}

std::optional<int> own_quota_cpus()
{
    // v2: "quota period" in cpu.max of the process's cgroup (inside a container's namespace: the root).
    for (const auto& dir : {"/sys/fs/cgroup" + cgroup_path(""), std::string("/sys/fs/cgroup")}) {
        const auto line = first_line(dir + "/cpu.max");
        if (const auto space = line.find(' '); space != std::string::npos) {
            return quota_cpus_of(std::string_view(line).substr(0, space), std::string_view(line).substr(space + 1));
        }
    }
    // v1: the cpu controller's cfs_quota_us and cfs_period_us.
    for (const auto& dir : {"/sys/fs/cgroup/cpu" + cgroup_path("cpu"), std::string("/sys/fs/cgroup/cpu")}) {
        const auto quota = first_line(dir + "/cpu.cfs_quota_us");
        if (!quota.empty()) return quota_cpus_of(quota, first_line(dir + "/cpu.cfs_period_us"));
    }
    return std::nullopt;
}

std::optional<int> node_cpu_limit(std::optional<int> quota_cpus, std::string_view given_cpus)
{
    const auto given = number(given_cpus);
    if (!given || *given <= 0) return quota_cpus;
    const int cpus = static_cast<int>(std::min<long>(*given, CPU_SETSIZE));
    return quota_cpus ? std::min(*quota_cpus, cpus) : cpus;
}

CpuShare share_of(const cpu_set_t& mine, const std::vector<cpu_set_t>& node_masks, std::optional<int> quota_cpus)
{
    CpuShare share;
    share.cpus = std::max(1, CPU_COUNT(&mine));
    share.sharers = 0;
    for (const auto& other : node_masks) {
        cpu_set_t common;
        CPU_AND(&common, &mine, &other);
        if (CPU_COUNT(&common) > 0) ++share.sharers;
    }
    share.sharers = std::max(1, share.sharers);  // mine is among node_masks; an empty list is a node of one
    share.threads = std::max(1, share.cpus / share.sharers);
    // A quota is the whole container's: its ranks split it.
    const int ranks = std::max<int>(1, static_cast<int>(node_masks.size()));
    if (quota_cpus) share.threads = std::max(1, std::min(share.threads, *quota_cpus / ranks));
    return share;
}

cpu_set_t own_affinity()
{
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) return mask;
    const long configured = std::clamp(sysconf(_SC_NPROCESSORS_CONF), 1L, static_cast<long>(CPU_SETSIZE));
    for (long cpu = 0; cpu < configured; ++cpu) CPU_SET(static_cast<int>(cpu), &mask);
    return mask;
}

CpuShare detect_cpu_share(collectives::Communicator& node)
{
    const cpu_set_t mine = own_affinity();
    // cpu_set_t is plain bytes (CPU_SETSIZE bits): one allgather carries every rank's mask.
    std::vector<cpu_set_t> masks(static_cast<size_t>(node.size()));
    node.allgather(std::span<const char>(reinterpret_cast<const char*>(&mine), sizeof mine),
                   std::span<char>(reinterpret_cast<char*>(masks.data()), sizeof(cpu_set_t) * masks.size()));
    const char* given = std::getenv("SHARDRUN_CPUS");
    return share_of(mine, masks, node_cpu_limit(own_quota_cpus(), given != nullptr ? given : ""));
}

}  // namespace shardrun::env
