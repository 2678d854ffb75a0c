#include "runner/run/plan/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "runner/env/device_binding.hpp"
#include "runner/errors.hpp"
#include "runner/placement/placement.hpp"

namespace shardrun::run {
namespace {

constexpr std::uint64_t claims_simulated = 1000000;

GroupPlan share_of(const PreparedJob& job, placement::IdBatch batch, int a, const GroupPlan& members)
{
    GroupPlan plan{a, members.group, members.first_rank, batch.count, batch.first, batch.last_id(), 0, members.members,
                   members.spans_nodes};
    plan.items = batch.stride == 1 ? job.space->items_in(batch.first, batch.first + batch.count)
                                   : job.space->items_in(batch.first, batch.last_id() + 1) / batch.stride;
    return plan;
}

std::uint64_t count_claims(const PreparedJob& job, placement::IdRange element, int groups)
{
    placement::ClaimSequence claims(element, groups, job.spec.schedule.min_claim, job.spec.schedule.max_claim);
    std::uint64_t n = 0;
    while (n < claims_simulated && claims.claim(n).count > 0) ++n;
    return n;
}

// The device(s) one rank gets on a node of `gpus_per_node` GPUs, as `run` binds them.
std::string member_device(int local_rank, int gpus_per_rank, const PlanNodes& nodes)
{
    if (nodes.gpus_per_node <= 0) return "cpu";
    if (gpus_per_rank == 1) return fmt::format("cuda:{}", local_rank % nodes.gpus_per_node);
    const auto packed = env::pack_devices(nodes.gpus_per_node, std::nullopt, local_rank, gpus_per_rank);
    if (!packed.problem.empty()) {
        SHARDRUN_THROW(UsageError, fmt::format("--gpus-per-node {}: {}", nodes.gpus_per_node, packed.problem));
    }
    return packed.binding.label();
}

// Every group's members, with the host and device each would get.
std::vector<GroupPlan> group_members(int ranks, int gpus_per_task, int gpus_per_rank, const PlanNodes& nodes)
{
    const int per_node = nodes.ranks_per_node > 0 ? nodes.ranks_per_node : ranks;
    std::vector<placement::RankPlace> places;
    for (int r = 0; r < ranks; ++r) places.push_back({r / per_node, r % per_node});
    const auto layouts = placement::form_groups(places, gpus_per_task);
    std::vector<GroupPlan> groups(static_cast<size_t>(layouts.empty() ? 0 : layouts.front().groups));
    for (int r = 0; r < ranks; ++r) {
        const auto& layout = layouts[static_cast<size_t>(r)];
        auto& group = groups[static_cast<size_t>(layout.group)];
        const auto node = static_cast<size_t>(places[static_cast<size_t>(r)].node);
        const auto host = node < nodes.hosts.size() ? nodes.hosts[node] : fmt::format("node{}", node);
        const auto local = places[static_cast<size_t>(r)].local_rank;
        group.group = layout.group;
        group.spans_nodes = layout.spans_nodes;
        if (layout.rank_in_group == 0) group.first_rank = r;
        group.members.push_back({r, host, member_device(local, gpus_per_rank, nodes)});
    }
    return groups;
}

// Hosts once per node in a row, devices one per member.
std::string joined(const std::vector<MemberPlan>& members, bool hosts)
{
    std::string text, last;
    for (const auto& member : members) {
        const auto& value = hosts ? member.host : member.device;
        if (hosts && value == last) continue;
        text += (text.empty() ? "" : ",") + value;
        last = value;
    }
    return text;
}

}  // namespace

PlanReport make_plan(const PreparedJob& job, int ranks, int array_count, int element, const PlanNodes& nodes)
{
    PlanReport report{job.spec.name, job.spec.task, job::schedule_name(job.spec.schedule.kind), job.spec.output.path, job.task_count(),
                      job.space->sweep_points(), job.space->chunks(), job.items, ranks, job.spec.gpus_per_task,
                      array_count, 1, ranks, false, {}, 1.0, 0};
    const auto layout = placement::group_layout(0, ranks, job.spec.gpus_per_task, nodes.ranks_per_node);
    const auto members = group_members(ranks, job.spec.gpus_per_task, job.spec.gpus_per_rank, nodes);
    report.gpus_per_rank = job.spec.gpus_per_rank;
    report.ranks_per_node = nodes.ranks_per_node > 0 ? std::min(nodes.ranks_per_node, ranks) : ranks;
    report.nodes = (ranks + report.ranks_per_node - 1) / report.ranks_per_node;
    report.groups_span_nodes = std::any_of(members.begin(), members.end(), [](const auto& g) { return g.spans_nodes; });
    std::uint64_t max_count = 0, total = 0;
    for (int a = 0; a < array_count; ++a) {
        if (element >= 0 && a != element) continue;
        const auto block = placement::array_block(report.tasks, static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(array_count));
        for (int g = 0; g < layout.groups; ++g) {
            const auto batch = job.spec.schedule.kind == job::ScheduleKind::cyclic
                                   ? placement::cyclic_share(block, g, layout.groups)
                                   : placement::block_share(block, g, layout.groups);
            report.groups.push_back(share_of(job, batch, a, members[static_cast<size_t>(g)]));
            max_count = std::max(max_count, batch.count);
            total += batch.count;
        }
        if (job.spec.schedule.kind == job::ScheduleKind::dynamic && report.dynamic_claims == 0) {
            report.dynamic_claims = count_claims(job, block, layout.groups);
        }
    }
    const double mean = report.groups.empty() ? 0 : static_cast<double>(total) / static_cast<double>(report.groups.size());
    report.imbalance = mean > 0 ? static_cast<double>(max_count) / mean : 1.0;
    return report;
}

std::string plan_text(const PlanReport& report)
{
    std::string out = fmt::format("job {} (task {}): {} tasks = {} sweep points x {} chunks{}\n", report.job_name,
                                  report.task_kind, report.tasks, report.sweep_points, report.chunks,
                                  report.items ? fmt::format(" ({} items)", report.items) : "");
    out += fmt::format("output {}\n", report.output);
    out += fmt::format("{} ranks on {} node{} ({} per node) in groups of {}, {} array element{}, schedule {}\n",
                       report.ranks, report.nodes, report.nodes == 1 ? "" : "s", report.ranks_per_node,
                       report.gpus_per_task, report.array_count, report.array_count == 1 ? "" : "s", report.schedule);
    if (report.gpus_per_rank > 1) {
        out += fmt::format("{} GPUs per rank (one process sees them all), packed by node: local rank r gets GPUs "
                           "r*{} .. r*{}+{}\n", report.gpus_per_rank, report.gpus_per_rank, report.gpus_per_rank,
                           report.gpus_per_rank - 1);
    }
    if (report.groups_span_nodes) {
        out += fmt::format("groups span nodes: gpus_per_task {} does not fit the {} ranks of one node\n",
                           report.gpus_per_task, report.ranks_per_node);
    }
    if (report.dynamic_claims) {
        out += fmt::format("dynamic: {}{} claims shrinking toward the end; counts below are the even share\n",
                           report.dynamic_claims, report.dynamic_claims >= claims_simulated ? "+" : "");
    }
    out += fmt::format("\n{:>5} {:>6} {:>6} {:>12} {:>14} {:>14} {:>14}  {:<16} {}\n", "array", "group", "rank", "tasks",
                       "first id", "last id", "items", "hosts", "devices");
    const size_t shown = std::min<size_t>(report.groups.size(), 64);
    for (size_t i = 0; i < shown; ++i) {
        const auto& g = report.groups[i];
        out += fmt::format("{:>5} {:>6} {:>6} {:>12} {:>14} {:>14} {:>14}  {:<16} {}\n", g.array_index, g.group,
                           g.first_rank, g.count, g.count ? std::to_string(g.first_id) : "-",
                           g.count ? std::to_string(g.last_id) : "-", g.items, joined(g.members, true),
                           joined(g.members, false));
    }
    if (shown < report.groups.size()) out += fmt::format("... {} more groups (--json lists all)\n", report.groups.size() - shown);
    out += fmt::format("\nimbalance (max/mean tasks per group): {:.3f}\n", report.imbalance);
    return out;
}

std::string plan_json(const PlanReport& report)
{
    auto groups = nlohmann::json::array();
    for (const auto& g : report.groups) {
        auto members = nlohmann::json::array();
        for (const auto& m : g.members) members.push_back({{"rank", m.rank}, {"host", m.host}, {"device", m.device}});
        groups.push_back({{"array_index", g.array_index}, {"group", g.group}, {"first_rank", g.first_rank},
                          {"count", g.count}, {"first_id", g.first_id}, {"last_id", g.last_id}, {"items", g.items},
                          {"members", members}, {"spans_nodes", g.spans_nodes}});
    }
    const nlohmann::json json = {{"job", report.job_name}, {"task", report.task_kind}, {"schedule", report.schedule}, {"output", report.output},
                                 {"tasks", report.tasks}, {"sweep_points", report.sweep_points},
                                 {"chunks", report.chunks}, {"items", report.items}, {"ranks", report.ranks},
                                 {"gpus_per_task", report.gpus_per_task}, {"gpus_per_rank", report.gpus_per_rank}, {"array_count", report.array_count},
                                 {"nodes", report.nodes}, {"ranks_per_node", report.ranks_per_node},
                                 {"groups_span_nodes", report.groups_span_nodes},
                                 {"dynamic_claims", report.dynamic_claims}, {"imbalance", report.imbalance},
                                 {"groups", groups}};
    return json.dump(2) + "\n";
}

}  // namespace shardrun::run
