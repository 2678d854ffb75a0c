// The chunk splitting of runner/tasks/chunk_split.cpp on hand-checkable chunks: a range run that
// fails whenever its range holds a poison row stands in for the worker (the CLI tests run the real one).
#include "runner/tasks/chunk_split.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

namespace shardrun::tasks {
namespace {

constexpr int killed = 137;

/** A `rows` field e of one float32 per row (row i holds i) and a per-task int64 n. */
std::vector<io::FieldSpec> fields(std::size_t chunk)
{
    io::FieldSpec e{"e", io::DType::float32, {chunk}};
    e.item_rows = true;
    return {e, io::FieldSpec{"n", io::DType::int64, {}}};
}

struct PoisonRun {
    std::set<std::uint64_t> poison;
    std::size_t chunk;
    int runs = 0;
    int exit_code = killed;

    TaskOutcome operator()(const TaskContext& part)
    {
        ++runs;
        const auto [start, end] = *part.range;
        for (auto row : poison) {
            if (row >= start && row < end) return TaskOutcome::failure(exit_code, "died on " + std::to_string(row));
        }
        TaskOutcome ok;
        std::vector<std::byte> e(chunk * sizeof(float)), n(sizeof(std::int64_t));
        for (auto row = start; row < end; ++row) {
            const auto value = static_cast<float>(row);
            std::memcpy(e.data() + (row - start) * sizeof(float), &value, sizeof value);
        }
        ok.values = {e, n};
        return ok;
    }
};

TaskContext chunk_context(std::uint64_t start, std::uint64_t end)
{
    TaskContext context;
    context.range = job::DataRange{start, end};
    return context;
}

float row_value(const TaskOutcome& outcome, std::size_t k)
{
    float value = 0;
    std::memcpy(&value, outcome.values[0].data() + k * sizeof(float), sizeof value);
    return value;
}

TEST(ChunkSplit, FindsEachPoisonRowWithinTwoLog2RunsAndKeepsTheOthers)
{
    PoisonRun run{{1000 + 3, 1000 + 200}, 256};
    const auto context = chunk_context(1000, 1256);
    const auto failed = run(context);

    const auto outcome = split_failed_chunk(context, fields(256), failed, std::ref(run));

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    ASSERT_EQ(outcome.row_failures.size(), 2u);
    EXPECT_EQ(outcome.row_failures[0].item, 1003u);
    EXPECT_EQ(outcome.row_failures[0].exit_code, killed);
    EXPECT_EQ(outcome.row_failures[0].reason, "died on 1003");
    EXPECT_EQ(outcome.row_failures[1].item, 1200u);
    EXPECT_LE(run.runs - 1, 2 * 2 * 8);  // 2 * log2(256) extra runs per poison row
    EXPECT_NE(outcome.message.find("2 of its 256 rows failed (row 1003: died on 1003)"), std::string::npos);
    for (std::size_t k = 0; k < 256; ++k) {
        if (k == 3 || k == 200) {
            EXPECT_TRUE(std::isnan(row_value(outcome, k)));
        } else {
            EXPECT_EQ(row_value(outcome, k), 1000.0f + k);
        }
    }
    std::int64_t n = 0;
    std::memcpy(&n, outcome.values[1].data(), sizeof n);
    EXPECT_EQ(n, std::numeric_limits<std::int64_t>::min()) << "a split chunk's per-task field is the fill value";
}

TEST(ChunkSplit, AFailureThatDoesNotComeBackLeavesTheTaskOk)
{
    PoisonRun run{{}, 16};
    const auto context = chunk_context(0, 16);

    const auto outcome = split_failed_chunk(context, fields(16), TaskOutcome::failure(killed, "once"), std::ref(run));

    EXPECT_EQ(outcome.status, io::TaskStatus::ok);
    EXPECT_TRUE(outcome.row_failures.empty());
    EXPECT_EQ(run.runs, 2);
    EXPECT_EQ(row_value(outcome, 15), 15.0f);
}

TEST(ChunkSplit, TooManyFailingRowsFailTheChunkWhole)
{
    PoisonRun run{{}, 64};
    for (std::uint64_t row = 0; row < 64; ++row) run.poison.insert(row);
    const auto context = chunk_context(0, 64);
    const auto failed = run(context);

    const auto outcome = split_failed_chunk(context, fields(64), failed, std::ref(run));

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_TRUE(outcome.row_failures.empty());
    EXPECT_TRUE(outcome.values.empty());
    EXPECT_NE(outcome.message.find("more than 4 of its rows failed alone"), std::string::npos) << outcome.message;
    EXPECT_LE(run.runs - 1, 2 * 6 * max_failing_rows_per_chunk);
}

TEST(ChunkSplit, ATimeoutOfAPartFailsTheChunkWhole)
{
    PoisonRun run{{5}, 16};
    run.exit_code = 124;
    const auto context = chunk_context(0, 16);

    const auto outcome = split_failed_chunk(context, fields(16), TaskOutcome::failure(killed, "died"), std::ref(run));

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_EQ(outcome.exit_code, 124);
    EXPECT_TRUE(outcome.row_failures.empty());
}

TEST(ChunkSplit, SplitsOnlyRowsChunksThatDiedOrAnsweredFailed)
{
    const auto context = chunk_context(0, 16);

    EXPECT_TRUE(may_split(TaskOutcome::failure(killed, "died"), context, fields(16)));
    EXPECT_TRUE(may_split(TaskOutcome::failure(1, "answered failed"), context, fields(16)));
    EXPECT_FALSE(may_split(TaskOutcome::failure(0, "malformed answer"), context, fields(16)));
    EXPECT_FALSE(may_split(TaskOutcome::failure(124, "timed out"), context, fields(16)));
    EXPECT_FALSE(may_split(TaskOutcome::failure(killed, "died"), chunk_context(3, 4), fields(16)));
    EXPECT_FALSE(may_split(TaskOutcome::failure(killed, "died"), context, {io::FieldSpec{"n", io::DType::int64, {}}}));
}

}  // namespace
}  // namespace shardrun::tasks
