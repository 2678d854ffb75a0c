#include "runner/run/loop/progress.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/errors.hpp"

namespace shardrun::run {
namespace {

TEST(ProgressReporter, PlainLineShowsCountsRateAndEta)
{
    const ProgressReporter reporter(ProgressMode::plain, 10, 100, 10);

    const auto line = reporter.line({40, 5, 2}, 9.0);

    EXPECT_EQ(line, "[   9.0s] done 55/100 (40 ok, 5 failed, 10 already done), running 2, 5.0 tasks/s, ETA 0m09s");
}

TEST(ProgressReporter, InterruptedTasksAreNotCountedAsDoneOrFailed)
{
    const ProgressReporter reporter(ProgressMode::plain, 10, 4, 0);

    const auto line = reporter.line({0, 0, 0, 2}, 3.7);

    EXPECT_EQ(line, "[   3.7s] done 0/4 (0 ok, 0 failed), 2 interrupted, running 0, 0.0 tasks/s, ETA ?");
}

TEST(ProgressReporter, EtaIsUnknownBeforeAnythingFinished)
{
    const ProgressReporter reporter(ProgressMode::plain, 10, 100, 0);

    const auto line = reporter.line({0, 0, 4}, 0.0);

    EXPECT_NE(line.find("done 0/100"), std::string::npos) << line;
    EXPECT_NE(line.find("ETA ?"), std::string::npos) << line;
    EXPECT_EQ(line.find("already done"), std::string::npos) << line;
    EXPECT_EQ(line.find("interrupted"), std::string::npos) << line;
}

TEST(ProgressReporter, LongEtaIsShownInHours)
{
    const ProgressReporter reporter(ProgressMode::plain, 10, 100000, 0);

    const auto line = reporter.line({10, 0, 1}, 10.0);

    EXPECT_NE(line.find("ETA 27h46m"), std::string::npos) << line;
}

TEST(ProgressReporter, JsonLineIsOneJsonObject)
{
    const ProgressReporter reporter(ProgressMode::json, 10, 100, 10);

    const auto line = reporter.line({40, 5, 2}, 9.0);

    const auto parsed = nlohmann::json::parse(line);
    EXPECT_EQ(parsed["event"], "progress");
    EXPECT_EQ(parsed["done"], 55);
    EXPECT_EQ(parsed["ok"], 40);
    EXPECT_EQ(parsed["failed"], 5);
    EXPECT_EQ(parsed["running"], 2);
    EXPECT_EQ(parsed["interrupted"], 0);
    EXPECT_EQ(parsed["already_done"], 10);
    EXPECT_EQ(parsed["total"], 100);
    EXPECT_DOUBLE_EQ(parsed["tasks_per_s"].get<double>(), 5.0);
    EXPECT_DOUBLE_EQ(parsed["eta_s"].get<double>(), 9.0);
    EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(ProgressReporter, ProgressModesParse)
{
    const auto json = parse_progress_mode("json");

    EXPECT_EQ(json, ProgressMode::json);
    EXPECT_EQ(parse_progress_mode("quiet"), ProgressMode::quiet);
    EXPECT_EQ(parse_progress_mode("plain"), ProgressMode::plain);
    EXPECT_THROW(parse_progress_mode("loud"), UsageError);
}

}  // namespace
}  // namespace shardrun::run
