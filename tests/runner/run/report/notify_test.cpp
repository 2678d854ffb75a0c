#include "runner/run/report/notify.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.hpp"

namespace shardrun::run {
namespace {

TEST(Notify, EndingFollowsTheExitCode)
{
    EXPECT_EQ(notify_ending(exit_ok), "end");
    EXPECT_EQ(notify_ending(exit_task_failed), "fail");
    EXPECT_EQ(notify_ending(exit_interrupted), "drain");
    EXPECT_EQ(notify_ending(exit_drained_without_progress), "drain");
}

TEST(Notify, JsonHoldsCountsPendingSchedulerAndTheLowestFailure)
{
    RankStats first, second;
    first.rank = 0;
    second.rank = 1;
    first.add(7, 1.0, false, 2, "exited with status 2: bad row");
    first.add(0, 1.0, true, 0, "");
    second.add(4, 0.5, false, 3, "exited with status 3: no input");
    const RunTotals totals{"heat", 10, 12.5, false, "results/heat.h5"};

    const auto j = nlohmann::json::parse(notify_json(totals, {first, second}, "fail", {"slurm", {{"SLURM_JOB_ID", "42"}}}));

    EXPECT_EQ(j["event"], "fail");
    EXPECT_EQ(j["ok"], 1);
    EXPECT_EQ(j["failed"], 2);
    EXPECT_EQ(j["pending"], 7);
    EXPECT_EQ(j["elapsed_seconds"], 12.5);
    EXPECT_EQ(j["output"], "results/heat.h5");
    EXPECT_EQ(j["scheduler"], "slurm");
    EXPECT_EQ(j["scheduler_ids"]["SLURM_JOB_ID"], "42");
    EXPECT_EQ(j["first_failure"]["task_id"], 4);
    EXPECT_EQ(j["first_failure"]["exit_code"], 3);
    EXPECT_EQ(j["first_failure"]["message"], "exited with status 3: no input");
}

TEST(Notify, NoFailureIsNull)
{
    RankStats only;
    only.add(0, 1.0, true, 0, "");
    const RunTotals totals{"heat", 1, 1.0, false, "out.h5"};

    const auto j = nlohmann::json::parse(notify_json(totals, {only}, "end", {"none", {}}));

    EXPECT_TRUE(j["first_failure"].is_null());
    EXPECT_EQ(j["pending"], 0);
    EXPECT_TRUE(j["scheduler_ids"].empty());
}

}  // namespace
}  // namespace shardrun::run
