#include "runner/run/report/summary.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <limits>

#include <nlohmann/json.hpp>

namespace shardrun::run {
namespace {

std::vector<RankStats> two_ranks()
{
    RankStats first, second;
    first.rank = 0;
    second.rank = 1;
    first.add(0, 1.0, true, 0, "");
    first.add(1, 3.0, false, 127, "cannot run 'sim': command not found");
    second.add(2, 0.5, true, 0, "");
    second.add(3, 1.5, true, 0, "");
    return {first, second};
}

/** two_ranks() after `signal` reached rank 1: 2 tasks already done by an earlier run, 1 interrupted. */
std::vector<RankStats> signalled_ranks(int signal)
{
    auto ranks = two_ranks();
    ranks[0].already_done = 2;
    ranks[1].interrupted = 1;
    ranks[1].signal = signal;
    return ranks;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Summary, CountsBusyTimeSlowestAndFailures)
{
    const RunTotals totals{"heat", 4, 12.5, false, "results/heat.h5"};

    const auto text = format_summary(totals, two_ranks());

    EXPECT_TRUE(contains(text, "heat finished in 12.50 s: 3 ok, 1 failed of 4 tasks\n")) << text;
    EXPECT_TRUE(contains(text, "min 2.00 s, mean 3.00 s, max 4.00 s; imbalance 1.33")) << text;
    // The ok tasks only: failed #1 (3 s) is listed below as failed, not as slow.
    EXPECT_TRUE(contains(text, "slowest: #3 1.500 s, #0 1.000 s, #2 0.500 s\n")) << text;
    EXPECT_TRUE(contains(text, "failed #1: exit 127: cannot run 'sim': command not found")) << text;
    EXPECT_TRUE(contains(text, "results: results/heat.h5")) << text;
    EXPECT_TRUE(contains(text, "picture: shardrun report results/heat.h5")) << text;
}

TEST(Summary, InterruptedRunSaysHowToResume)
{
    const RunTotals totals{"heat", 4, 1.0, true, ""};

    const auto text = format_summary(totals, two_ranks());

    EXPECT_TRUE(contains(text, "INTERRUPTED")) << text;
    EXPECT_TRUE(contains(text, "--resume")) << text;
}

TEST(Summary, InterruptedRunNamesTheSignalTheRankAndTheTaskStates)
{
    RunTotals totals{"heat", 10, 1.0, true, ""};
    auto ranks = signalled_ranks(SIGUSR1);
    ranks[1].drain_ran_out = true;

    const auto text = format_summary(totals, ranks);

    // 3 ok + 1 failed + 1 interrupted + 2 already done of 10: 3 were never started.
    EXPECT_TRUE(contains(text, "heat INTERRUPTED in 1.00 s: 3 ok, 1 failed, 1 interrupted, 3 not started, 2 already done of 10 tasks\n"))
        << text;
    EXPECT_TRUE(contains(text, "interrupted by SIGUSR1 to rank 1, then drain_timeout ran out:")) << text;
    EXPECT_FALSE(contains(text, "time limit")) << "a USR1 is not assumed to be Slurm's: " << text;
    const auto json = nlohmann::json::parse(summary_json(totals, ranks));
    EXPECT_EQ(json["interrupted"], 1);
    EXPECT_EQ(json["already_done"], 2);
    EXPECT_EQ(json["stopped"], "interrupted by SIGUSR1 to rank 1, then drain_timeout ran out");
}

TEST(Summary, QuietLineOfAStopCountsWhatIsPending)
{
    RunTotals totals{"heat", 10, 1.0, true, ""};
    const auto ranks = signalled_ranks(SIGTERM);

    // -q prints no summary: a stop still says itself (issue 39's trial). 3 ok + 1 failed + 2 done of 10.
    EXPECT_EQ(quiet_summary_line(totals, ranks),
              "heat stopped by SIGTERM to rank 1: 4 of 10 tasks pending (interrupted or not started); committed tasks "
              "are kept; run again with --resume to finish");
    totals.stop_reason = "stopped after 3 failed tasks";
    EXPECT_EQ(quiet_summary_line(totals, ranks), "stopped after 3 failed tasks");
    totals.stop_reason.clear();
    totals.tasks = 6;  // a drain that came after the last task: nothing to say
    EXPECT_EQ(quiet_summary_line(totals, ranks), "");
    totals.interrupted = false;
    EXPECT_EQ(quiet_summary_line(totals, ranks), "");
}

TEST(Summary, EndsWithANoteWhenMpirunsBannerFollows)
{
    RunTotals totals{"heat", 4, 1.0, false, "results/heat.h5"};
    totals.exit_code = 1;
    totals.launcher_banner_follows = true;

    const auto text = format_summary(totals, two_ranks());

    const std::string last = "  (mpirun's note below only repeats exit code 1; `mpirun -q` leaves this summary last)\n";
    ASSERT_GE(text.size(), last.size());
    EXPECT_EQ(text.substr(text.size() - last.size()), last) << text;
}

TEST(Summary, ArrayElementNamesItsShardsAndTheMergeCommand)
{
    RunTotals totals{"heat", 4, 1.0, false, "results/heat.h5"};
    totals.array_index = 1;
    totals.array_count = 3;

    const auto text = format_summary(totals, two_ranks());

    EXPECT_TRUE(contains(text, "array element 1 of 3 finished")) << text;
    EXPECT_TRUE(contains(text, "its results: results/heat.h5.shards/a1/")) << text;
    EXPECT_TRUE(contains(text, "when all 3 elements have finished: shardrun merge results/heat.h5\n")) << text;
    EXPECT_FALSE(contains(text, "  results: results/heat.h5\n")) << "the master does not exist yet: " << text;
}

TEST(Summary, InterruptedArrayElementSaysSo)
{
    RunTotals totals{"heat", 4, 1.0, true, "my results/heat.h5"};
    totals.array_index = 0;
    totals.array_count = 2;

    const auto text = format_summary(totals, two_ranks());

    EXPECT_TRUE(contains(text, "array element 0 of 2 INTERRUPTED")) << text;
    EXPECT_TRUE(contains(text, "shardrun merge 'my results/heat.h5'")) << text;
}

TEST(Summary, JsonSummaryOfAnArrayElement)
{
    RunTotals totals{"heat", 4, 1.0, false, "out.h5"};
    totals.array_index = 2;
    totals.array_count = 4;

    const auto parsed = nlohmann::json::parse(summary_json(totals, two_ranks()));

    EXPECT_EQ(parsed["array_index"], 2);
    EXPECT_EQ(parsed["array_count"], 4);
    EXPECT_EQ(parsed["element_output"], "out.h5.shards/a2/");
    EXPECT_EQ(parsed["merge_command"], "shardrun merge out.h5");
}

TEST(Summary, JsonSummaryHasTotalsAndRanks)
{
    const RunTotals totals{"heat", 4, 12.5, false, "out.h5"};

    const auto parsed = nlohmann::json::parse(summary_json(totals, two_ranks()));

    EXPECT_EQ(parsed["event"], "summary");
    EXPECT_EQ(parsed["ok"], 3);
    EXPECT_EQ(parsed["failed"], 1);
    EXPECT_EQ(parsed["tasks"], 4);
    ASSERT_EQ(parsed["ranks"].size(), 2u);
    EXPECT_EQ(parsed["ranks"][0]["failures"][0]["exit_code"], 127);
}

TEST(Summary, MeasuredTasksGiveTheirCpuTimeAndLargestPeak)
{
    auto ranks = two_ranks();
    ranks[0].add_usage(1.25, 200'000'000);
    ranks[1].add_usage(0.75, 50'000'000);
    ranks[1].add_usage(std::numeric_limits<double>::quiet_NaN(), -1);  // a task not measured
    const RunTotals totals{"heat", 4, 12.5, false, "results/heat.h5"};

    const auto text = format_summary(totals, ranks);
    const auto parsed = nlohmann::json::parse(summary_json(totals, ranks));

    EXPECT_TRUE(contains(text, "CPU time of 2 measured tasks: 2.00 s; largest peak memory of one: 200.0 MB")) << text;
    EXPECT_EQ(parsed["cpu_seconds"], 2.0);
    EXPECT_EQ(parsed["measured_tasks"], 2);
    EXPECT_EQ(parsed["mem_peak"], 200'000'000);
}

TEST(Summary, NoMeasuredTaskPrintsNoCpuLine)
{
    const RunTotals totals{"heat", 4, 12.5, false, "results/heat.h5"};

    EXPECT_FALSE(contains(format_summary(totals, two_ranks()), "CPU time")) << format_summary(totals, two_ranks());
}

// Issue 39's trials: a failure that took no time is not "slow".
TEST(Summary, SlowestListsNoFailedTask)
{
    RankStats rank;
    rank.add(0, 0.2, true, 0, "");
    rank.add(1, 0.0, false, 127, "cannot run 'sim': command not found");
    const RunTotals totals{"heat", 2, 1.0, false, "results/heat.h5"};

    const auto text = format_summary(totals, {rank});

    EXPECT_TRUE(contains(text, "slowest: #0 0.200 s\n")) << text;
    EXPECT_TRUE(contains(text, "failed #1: exit 127")) << text;
}

// Issue 39's trials: the busy time of attempts a stop cut short is the rank's busy time too.
TEST(Summary, BusyTimeCountsInterruptedAttempts)
{
    RankStats first, second;
    first.rank = 0;
    second.rank = 1;
    first.add_interrupted(0, 2.0);
    second.add_interrupted(1, 1.0);
    RunTotals totals{"long", 4, 3.0, true, "results/long.h5"};
    totals.no_progress = true;

    const auto text = format_summary(totals, {first, second});

    EXPECT_TRUE(contains(text, "busy per rank: min 1.00 s, mean 1.50 s, max 2.00 s")) << text;
}

TEST(Summary, NoBusyLineWhenNoTaskRan)
{
    RankStats rank;
    rank.already_done = 4;
    const RunTotals totals{"heat", 4, 1.0, false, "results/heat.h5"};

    const auto text = format_summary(totals, {rank});

    EXPECT_FALSE(contains(text, "busy per rank")) << text;
    EXPECT_TRUE(contains(text, "4 already done of 4 tasks")) << text;
}

// Issue 39's trials: the NO PROGRESS advice names the launcher's own time limit, and none under mpirun.
TEST(Summary, NoProgressAdviceFollowsTheLauncher)
{
    RankStats rank;
    rank.add_interrupted(0, 5.0);
    RunTotals totals{"long", 4, 6.0, true, "results/long.h5"};
    totals.no_progress = true;
    const std::vector<std::pair<std::string, std::string>> cases{
        {"slurm", "give the job more time (Slurm: --time), checkpoint inside the task"},
        {"aws-batch", "give the job more time (AWS Batch: the job definition's timeout.attemptDurationSeconds, "
                      "which shardrun submit --time sets), checkpoint"},
        {"gcp-batch", "give the job more time (Google Batch: the task's maxRunDuration, which shardrun submit --time "
                      "sets), checkpoint"},
        {"mpirun", "cannot finish it: checkpoint inside the task, or split it"},
        {"none", "cannot finish it: checkpoint inside the task, or split it"},
    };
    for (const auto& [scheduler, advice] : cases) {
        totals.scheduler = scheduler;
        const auto text = format_summary(totals, {rank});
        EXPECT_TRUE(contains(text, advice)) << scheduler << ": " << text;
        if (scheduler != "slurm") EXPECT_FALSE(contains(text, "Slurm")) << scheduler << ": " << text;
    }
}

// Issue 39's trials: an output the bucket did not get whole is no report to picture.
TEST(Summary, OutputNotAllInTheBucketPointsToTroubleshootingNotToAPicture)
{
    RunTotals totals{"outage", 4, 5.0, false, "s3://b/outage.h5"};
    totals.exit_code = 3;
    totals.bucket_note = "NOT IN THE BUCKET: 2 committed task(s) not confirmed in the bucket: 2-3 (...)";

    auto text = format_summary(totals, two_ranks());

    EXPECT_FALSE(contains(text, "picture:")) << text;
    EXPECT_FALSE(contains(text, "  results: ")) << text;
    EXPECT_TRUE(contains(text, "docs/troubleshooting.md#bucket-errors")) << text;
    EXPECT_TRUE(contains(text, "--resume")) << text;

    totals.array_index = 1;
    totals.array_count = 3;
    text = format_summary(totals, two_ranks());
    EXPECT_TRUE(contains(text, "array element 1 of 3 NOT ALL IN THE BUCKET")) << text;
    EXPECT_FALSE(contains(text, "shardrun merge")) << "nothing to merge from the bucket yet: " << text;
    EXPECT_TRUE(contains(text, "docs/troubleshooting.md#bucket-errors")) << text;
}

}  // namespace
}  // namespace shardrun::run
