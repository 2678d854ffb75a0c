// The claim counter of the dynamic schedule (run at 1, 2, 4 ranks).
#include "runner/run/shared_counters.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <thread>
#include <vector>

#include "runner/job/job_parser.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/memory_sink.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/rank_loop.hpp"
#include "runner/run/work_source.hpp"
#include "runner/tasks/noop_kind.hpp"
#include "tests/support/mpi_world.hpp"

namespace shardrun::run {
namespace {

using shardrun::testing::world_rank;
using shardrun::testing::world_size;

// Every rank's values on rank 0, concatenated (empty elsewhere).
std::vector<std::uint64_t> gather_all(const std::vector<std::uint64_t>& mine)
{
    return shardrun::testing::gather_on_rank0(mine);
}

// A directory every rank knows, made by rank 0 (for signals that must not go through MPI).
std::string shared_temp_dir()
{
    std::vector<char> name(256, '\0');
    if (world_rank() == 0) {
        std::string pattern = (std::filesystem::temp_directory_path() / "shardrun_counters_XXXXXX").string();
        const char* made = ::mkdtemp(pattern.data());
        std::copy_n(made != nullptr ? made : "", std::min<size_t>(std::strlen(made != nullptr ? made : ""), 255),
                    name.begin());
    }
    MPI_Bcast(name.data(), static_cast<int>(name.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
    return name.data();
}

size_t files_in(const std::string& dir)
{
    size_t count = 0;
    std::error_code ignored;
    for (auto it = std::filesystem::directory_iterator(dir, ignored); it != std::filesystem::directory_iterator(); ++it) {
        ++count;
    }
    return count;
}

TEST(SharedCounters, ClaimNumbersAreHandedOutOnceAcrossRanks)
{
    SharedCounters counters;
    std::vector<std::uint64_t> mine;

    for (int i = 0; i < 100; ++i) mine.push_back(counters.next_claim());

    const auto all = gather_all(mine);
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    if (world_rank() == 0) {
        auto sorted = all;
        std::sort(sorted.begin(), sorted.end());
        std::vector<std::uint64_t> expected(100 * static_cast<size_t>(world_size()));
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(sorted, expected);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

TEST(SharedCounters, ProgressAddsUpOverRanks)
{
    SharedCounters counters;

    counters.add_progress({2, 1, 0});
    MPI_Barrier(MPI_COMM_WORLD);
    const auto counts = counters.read_progress();

    EXPECT_EQ(counts.ok, 2 * world_size());
    EXPECT_EQ(counts.failed, world_size());
    EXPECT_EQ(counts.running, 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

// Rank 0 owns the counter. While it is busy (here: waiting without any MPI call until the
// others say they are done, as a long task would), the other ranks must still be able to
// claim and finish every task of a dynamic schedule. Rank 0 keeps the progress thread that
// `shardrun run` starts on it.
TEST(SharedCounters, ClaimsProgressWhileTheOwnerIsBusy)
{
    const auto dir = shared_temp_dir();
    const auto spec = job::parse_job(
        "busy.yaml", "task: noop\nsweep: {a: [1, 2, 3]}\ndata: {items: 1000, chunk: 3}\nschedule: dynamic\n", {},
        {"noop"});
    const tasks::NoopKind kind;
    const auto space = job::TaskSpace::of(spec, spec.data.items);
    LoopSettings settings;
    settings.kind = &kind;
    settings.space = &space;
    settings.fields = kind.fields(spec.params);
    settings.rank = world_rank();
    SharedCounters counters;
    int level = 0;
    MPI_Query_thread(&level);
    std::unique_ptr<ProgressThread> progress;
    if (world_rank() == 0 && level >= MPI_THREAD_MULTIPLE) progress = std::make_unique<ProgressThread>(counters, nullptr);
    ProgressFeed feed(counters);
    MemorySink sink;
    auto source = make_work_source(spec.schedule, {0, space.size()},
                                   placement::group_layout(world_rank(), world_size(), 1), counters);
    bool others_finished = true;

    if (world_rank() == 0 && world_size() > 1) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (files_in(dir) < static_cast<size_t>(world_size() - 1) && std::chrono::steady_clock::now() < give_up) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        others_finished = files_in(dir) == static_cast<size_t>(world_size() - 1);
    }
    run_rank_loop(settings, *source, sink, feed);
    if (world_rank() != 0) std::ofstream(dir + "/rank" + std::to_string(world_rank())) << "done\n";

    std::vector<std::uint64_t> ids;
    for (const auto& record : sink.records) ids.push_back(record.task_id);
    auto all = gather_all(ids);
    if (world_rank() == 0) {
        EXPECT_TRUE(others_finished) << "the other ranks could not finish while rank 0 (the counter's owner) was busy";
        if (world_size() > 1) EXPECT_TRUE(sink.records.empty()) << "rank 0 ran " << sink.records.size() << " tasks";
        std::sort(all.begin(), all.end());
        std::vector<std::uint64_t> expected(space.size());
        std::iota(expected.begin(), expected.end(), 0);
        EXPECT_EQ(all, expected);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    progress.reset();
    if (world_rank() == 0) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shardrun::run
