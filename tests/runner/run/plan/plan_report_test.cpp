#include "runner/run/plan/plan_report.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/runner/run/prepared_job_for_test.hpp"
#include "runner/errors.hpp"

namespace shardrun::run {
namespace {

PreparedJob prepared(const std::string& text) { return testing::prepared_job(text, "plan.yaml"); }

std::uint64_t total_count(const PlanReport& report)
{
    std::uint64_t total = 0;
    for (const auto& group : report.groups) total += group.count;
    return total;
}

TEST(PlanReport, BlockScheduleSplitsContiguously)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 10, 1]}}\nschedule: static\n");

    const auto report = make_plan(job, 3, 1, -1);

    EXPECT_EQ(report.tasks, 10u);
    ASSERT_EQ(report.groups.size(), 3u);
    EXPECT_EQ(report.groups[0].count, 4u);
    EXPECT_EQ(report.groups[0].first_id, 0u);
    EXPECT_EQ(report.groups[0].last_id, 3u);
    EXPECT_EQ(report.groups[1].first_id, 4u);
    EXPECT_EQ(report.groups[1].last_id, 6u);
    EXPECT_EQ(report.groups[2].first_id, 7u);
    EXPECT_EQ(report.groups[2].last_id, 9u);
    EXPECT_EQ(report.groups[2].first_rank, 2);
    EXPECT_DOUBLE_EQ(report.imbalance, 4.0 / (10.0 / 3.0));
}

TEST(PlanReport, GroupsShowTheirHostsAndDevices)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 8, 1]}}\ngpus_per_task: 2\n");
    const PlanNodes nodes{4, 2, {"alpha", "beta"}};

    const auto report = make_plan(job, 8, 1, -1, nodes);

    EXPECT_EQ(report.nodes, 2);
    EXPECT_FALSE(report.groups_span_nodes);
    ASSERT_EQ(report.groups.size(), 4u);
    const auto& third = report.groups[2];
    EXPECT_EQ(third.first_rank, 4);
    ASSERT_EQ(third.members.size(), 2u);
    EXPECT_EQ(third.members[0].host, "beta");
    EXPECT_EQ(third.members[1].rank, 5);
    EXPECT_EQ(third.members[1].device, "cuda:1");
    EXPECT_NE(plan_text(report).find("beta             cuda:0,cuda:1"), std::string::npos) << plan_text(report);
}

TEST(PlanReport, GroupsLargerThanANodeSpanNodesAndSaySo)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 8, 1]}}\ngpus_per_task: 4\n");
    const PlanNodes nodes{2, 0, {}};

    const auto report = make_plan(job, 8, 1, -1, nodes);

    EXPECT_TRUE(report.groups_span_nodes);
    ASSERT_EQ(report.groups.size(), 2u);
    EXPECT_TRUE(report.groups[1].spans_nodes);
    EXPECT_EQ(report.groups[1].members[3].host, "node3");
    EXPECT_EQ(report.groups[1].members[3].device, "cpu");
    EXPECT_NE(plan_text(report).find("groups span nodes"), std::string::npos);
}

TEST(PlanReport, CyclicScheduleStrides)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 10, 1]}}\nschedule: cyclic\n");

    const auto report = make_plan(job, 3, 1, -1);

    ASSERT_EQ(report.groups.size(), 3u);
    EXPECT_EQ(report.groups[1].count, 3u);
    EXPECT_EQ(report.groups[1].first_id, 1u);
    EXPECT_EQ(report.groups[1].last_id, 7u);
    EXPECT_EQ(total_count(report), 10u);
}

TEST(PlanReport, ArrayElementsTakeContiguousBlocks)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 10, 1]}}\nschedule: static\n");

    const auto all = make_plan(job, 2, 2, -1);
    const auto second = make_plan(job, 2, 2, 1);

    EXPECT_EQ(all.groups.size(), 4u);
    EXPECT_EQ(total_count(all), 10u);
    ASSERT_EQ(second.groups.size(), 2u);
    EXPECT_EQ(second.groups[0].array_index, 1);
    EXPECT_EQ(second.groups[0].first_id, 5u);
    EXPECT_EQ(second.groups[1].last_id, 9u);
}

TEST(PlanReport, GroupsOfRanksAndItems)
{
    const auto job = prepared("task: noop\nsweep: {a: [1, 2]}\ndata: {items: 10, chunk: 4}\ngpus_per_task: 2\n"
                              "schedule: static\n");

    const auto report = make_plan(job, 4, 1, -1);

    EXPECT_EQ(report.tasks, 6u);
    EXPECT_EQ(report.chunks, 3u);
    EXPECT_EQ(report.sweep_points, 2u);
    ASSERT_EQ(report.groups.size(), 2u);
    EXPECT_EQ(report.groups[1].first_rank, 2);
    EXPECT_EQ(report.groups[0].items, 10u);
    EXPECT_EQ(report.groups[1].items, 10u);
}

TEST(PlanReport, GroupSizeNotDividingTheRanksIsAUsageError)
{
    const auto job = prepared("task: noop\ngpus_per_task: 2\n");

    EXPECT_THROW(make_plan(job, 3, 1, -1), UsageError);
}

TEST(PlanReport, DynamicScheduleCountsItsClaims)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 1000, 1]}}\nschedule: dynamic\n");

    const auto report = make_plan(job, 4, 1, -1);

    EXPECT_GT(report.dynamic_claims, 4u);
    EXPECT_LE(report.dynamic_claims, 1000u);
    EXPECT_EQ(total_count(report), 1000u);
}

TEST(PlanReport, BillionTaskPlanIsComputedWithoutTheTasks)
{
    const auto job = prepared("task: noop\nsweep: {i: {range: [0, 1000000000, 1]}}\nschedule: static\n");

    const auto report = make_plan(job, 8, 10, -1);

    EXPECT_EQ(report.tasks, 1000000000u);
    EXPECT_EQ(report.groups.size(), 80u);
    EXPECT_EQ(total_count(report), 1000000000u);
    EXPECT_EQ(report.groups.back().last_id, 999999999u);
}

TEST(PlanReport, JsonListsEveryGroup)
{
    const auto job = prepared("task: noop\nsweep: {a: {range: [0, 10, 1]}}\nschedule: static\n");
    const auto report = make_plan(job, 3, 2, -1);

    const auto parsed = nlohmann::json::parse(plan_json(report));
    const auto text = plan_text(report);

    EXPECT_EQ(parsed["tasks"], 10);
    EXPECT_EQ(parsed["groups"].size(), 6u);
    EXPECT_NE(text.find("10 tasks"), std::string::npos) << text;
}

}  // namespace
}  // namespace shardrun::run
