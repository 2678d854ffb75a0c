// Rank groups (gpus_per_task = G): every task runs once per group, on all of its members,
// with the same id; each group's communicator holds exactly its own members (1, 2, 4 ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <numeric>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "tests/support/memory_sink.hpp"
#include "tests/support/mpi_world.hpp"
#include "tests/support/rank_loop_env.hpp"

namespace shardrun::run {
namespace {

using collectives::ReduceOp;
using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// Runs a task as a group: checks on the group communicator that every member holds the same
// id and that the members are the ones expected, and remembers what this member ran.
class GroupProbeKind : public tasks::TaskKind {
public:
    std::string_view name() const noexcept override { return "group-probe"; }
    void validate(const job::ParamMap&, const tasks::JobView&) const override {}
    std::vector<io::FieldSpec> fields(const job::ParamMap&) const override
    {
        return {{"value", io::DType::float64, {}, ""}};
    }
    tasks::TaskOutcome run(const tasks::TaskContext& context) const override
    {
        auto& group = *context.group.comm;
        const auto ids = group.allgather_value<std::uint64_t>(context.task_id);
        const auto ranks = group.allgather_value<std::int32_t>(world_rank());
        // Sums over another group's members would differ: each group's collectives are its own.
        const auto sum = group.allreduce_value<std::uint64_t>(context.task_id + 1, ReduceOp::sum);
        std::lock_guard lock(mutex_);
        ran.push_back(context.task_id);
        members = ranks;
        if (std::any_of(ids.begin(), ids.end(), [&](auto id) { return id != context.task_id; })) ++mismatched_ids;
        if (sum != (context.task_id + 1) * static_cast<std::uint64_t>(group.size())) ++wrong_sums;
        tasks::TaskOutcome outcome;
        const double value = static_cast<double>(context.task_id);
        outcome.values.emplace_back(sizeof value);
        std::memcpy(outcome.values.back().data(), &value, sizeof value);
        return outcome;
    }

    mutable std::mutex mutex_;
    mutable std::vector<std::uint64_t> ran;
    mutable std::vector<std::int32_t> members;
    mutable int mismatched_ids = 0;
    mutable int wrong_sums = 0;
};

struct Case {
    std::string schedule;
    int gpus_per_task;
};

class RankGroups : public ::testing::TestWithParam<Case> {};

TEST_P(RankGroups, EveryTaskRunsOncePerGroupOnAllMembersWithTheSameId)
{
    const int g = GetParam().gpus_per_task;
    if (world_size() % g != 0) {
        // G must divide the ranks: the job is refused with a usage error, checked in plan/placement tests.
        EXPECT_THROW(placement::group_layout(0, world_size(), g), UsageError);
        return;
    }
    const auto spec = job::parse_job("groups.yaml",
                                     "task: noop\nsweep: {a: {range: [0, 37, 1]}}\nschedule: " + GetParam().schedule +
                                         "\n",
                                     {}, {"noop"});
    const GroupProbeKind kind;
    MemorySink sink;
    testing::LoopRunOptions options;
    options.gpus_per_task = g;

    const auto result = testing::run_loop(spec, kind, sink, options);

    const auto& layout = result.layout;
    EXPECT_EQ(layout.size, g);
    EXPECT_EQ(layout.groups, world_size() / g);
    EXPECT_EQ(kind.mismatched_ids, 0);
    EXPECT_EQ(kind.wrong_sums, 0);
    // One node: group k holds world ranks k*G .. k*G+G-1, the leader first.
    if (!kind.ran.empty()) {
        std::vector<std::int32_t> expected(static_cast<size_t>(g));
        std::iota(expected.begin(), expected.end(), layout.group * g);
        EXPECT_EQ(kind.members, expected);
    }
    // Exactly one member records; all members ran the leader's ids.
    EXPECT_EQ(sink.records.size(), layout.rank_in_group == 0 ? kind.ran.size() : 0u);
    std::vector<std::uint64_t> leader_ids = kind.ran;
    const auto world = collectives::mpi::world();
    const auto group = world->split(layout.group, layout.rank_in_group);
    auto count = group->broadcast_value<std::uint64_t>(leader_ids.size(), 0);
    leader_ids.resize(count);
    group->broadcast(std::span<std::uint64_t>(leader_ids), 0);
    EXPECT_EQ(kind.ran, leader_ids) << "member " << layout.rank_in_group << " of group " << layout.group;
    std::vector<std::uint64_t> recorded;
    for (const auto& record : sink.records) recorded.push_back(record.task_id);
    auto all = shardrun::testing::gather_on_rank0(recorded);
    if (world_rank() == 0) {
        std::sort(all.begin(), all.end());
        std::vector<std::uint64_t> every(37);
        std::iota(every.begin(), every.end(), 0);
        EXPECT_EQ(all, every);
    }
}

INSTANTIATE_TEST_SUITE_P(SchedulesAndSizes, RankGroups,
                         ::testing::Values(Case{"static", 1}, Case{"static", 2}, Case{"static", 4},
                                           Case{"cyclic", 2}, Case{"dynamic", 1}, Case{"dynamic", 2},
                                           Case{"dynamic", 4}),
                         [](const auto& info) { return info.param.schedule + "_g" + std::to_string(info.param.gpus_per_task); });

}  // namespace
}  // namespace shardrun::run
