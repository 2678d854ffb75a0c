#include "io/job_output.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/checksum/checksum.hpp"
#include "io/gather/task_stream.hpp"
#include "io/layout/stopped_note.hpp"
#include "io/read/live_snapshot.hpp"
#include "io/read/results_table.hpp"
#include "output_test_support.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

using testing::check_master;
using testing::test_fields;
using testing::test_metadata;
using testing::test_params;
using testing::test_record;
using testing::test_values;

/** Runs tasks [first, end) of element `m` on one rank, committing every `batch`, and finalizes. */
OutputSummary run_element(const OutputOptions& options, const JobMetadata& m, std::uint64_t batch = 8)
{
    auto lock = prepare_output(options, m);
    const auto done = committed_tasks(options, m);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    std::uint64_t since_commit = 0;
    for (auto id = m.first_task; id < m.end_task; ++id) {
        if (std::binary_search(done.begin(), done.end(), id)) continue;
        sink->record(test_record(id, 0), test_values(id, test_fields()));
        if (++since_commit % batch == 0) sink->commit();
    }
    sink->commit();
    sink.reset();
    return finalize_output(options, m, test_fields(), test_params(m.task_count), {}, 1);
}

TEST(JobOutput, ShardsMasterHoldsEveryRowAndProvenance)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/out/results.h5"};
    const auto m = test_metadata(50);

    const auto summary = run_element(options, m);

    EXPECT_TRUE(summary.complete);
    EXPECT_TRUE(summary.master_written);
    EXPECT_EQ(summary.ok + summary.failed, 50u);
    EXPECT_EQ(check_master(options.path, 50), "");
    const hid_t file = H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(testing::read_root_string(file, "params_sha256"), sha256_hex(m.params_json));
    EXPECT_EQ(testing::read_root_string(file, "job_text"), m.job_text);
    EXPECT_EQ(testing::read_doubles(file, "params/alpha")[7], 3.5);
    EXPECT_EQ(testing::read_ints(file, "params/n")[7], 1);
    H5Fclose(file);
    EXPECT_FALSE(fs::exists(options.path + ".tmp"));
}

TEST(TaskStream, BlocksOfLargeRowsStayWithinTheBlockBudgetAndKeepEveryRow)
{
    // 4 MiB a row: 65536-row blocks would hold 256 GiB; the stream takes block_bytes() at a time.
    const std::vector<FieldSpec> fields{FieldSpec{"big", DType::float32, {1u << 20}, ""}};
    const std::uint64_t tasks = 20;
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/big.h5", Layout::shards};
    const auto m = test_metadata(tasks);
    {
        auto lock = prepare_output(options, m);
        auto sink = open_rank_sink(options, m, fields, 0, 1);
        for (std::uint64_t id = 0; id < tasks; ++id) {
            TaskValues values{std::vector<std::byte>(fields[0].bytes())};
            const auto first = static_cast<float>(id), last = -static_cast<float>(id);
            std::memcpy(values[0].data(), &first, sizeof first);
            std::memcpy(values[0].data() + fields[0].bytes() - sizeof last, &last, sizeof last);
            sink->record(test_record(id, 0), values);
            if (id % 6 == 5) sink->commit();
        }
        sink->commit();
    }
    TaskStream stream(0, tasks, fields, TaskStream::Reads::with_results);
    stream.add_element(options.path, 0, 0, tasks);
    TaskRows block;
    std::uint64_t next = 0;
    while (stream.next(block)) {
        EXPECT_EQ(stream.first_id(), next);
        EXPECT_GE(block.size(), 1u);
        EXPECT_LE(block.size() * fields[0].bytes(), block_bytes());
        for (std::size_t k = 0; k < block.size(); ++k) {
            float first = 0, last = 0;
            const auto* row = block.fields[0].data() + k * fields[0].bytes();
            std::memcpy(&first, row, sizeof first);
            std::memcpy(&last, row + fields[0].bytes() - sizeof last, sizeof last);
            EXPECT_EQ(first, static_cast<float>(next + k));  // as recorded, failed rows too (the master fills those)
            EXPECT_EQ(last, -static_cast<float>(next + k));
        }
        next += block.size();
    }
    EXPECT_EQ(next, tasks);
    fs::remove_all(dir);
}

namespace {

/** Every path under `dir` (files and folders), sorted. */
std::vector<std::string> tree_of(const std::string& dir)
{
    std::vector<std::string> paths;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) paths.push_back(entry.path().string());
    std::sort(paths.begin(), paths.end());
    return paths;
}

/** A vector field and a scalar one; tasks [0, committed) committed, the writer still holding the lock. */
const std::vector<FieldSpec> live_fields{FieldSpec{"curve", DType::float32, {4}, ""}, FieldSpec{"v", DType::float64, {}, ""}};

void record_live(ResultSink& sink, std::uint64_t id)
{
    TaskValues values{std::vector<std::byte>(live_fields[0].bytes()), std::vector<std::byte>(sizeof(double))};
    const double v = 10.0 * static_cast<double>(id) + 0.5;
    std::memcpy(values[1].data(), &v, sizeof v);
    sink.record(test_record(id, 0), values);
}

}  // namespace

TEST(TaskStream, SelectedFieldsAreTheOnlyOnesDelivered)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/sel.h5", Layout::shards};
    const auto m = test_metadata(4);
    {
        auto lock = prepare_output(options, m);
        auto sink = open_rank_sink(options, m, live_fields, 0, 1);
        for (std::uint64_t id = 0; id < 4; ++id) record_live(*sink, id);
        sink->commit();
    }

    TaskStream stream(0, 4, live_fields, TaskStream::Reads::with_results);
    stream.select_fields({1});
    stream.add_element(options.path, 0, 0, 4);
    TaskRows block;
    ASSERT_TRUE(stream.next(block));

    ASSERT_EQ(block.fields.size(), 1u);  // v only: curve is not copied
    ASSERT_EQ(block.fields[0].size(), 4 * sizeof(double));
    for (std::size_t k = 0; k < 4; ++k) {
        double v = 0;
        std::memcpy(&v, block.fields[0].data() + k * sizeof v, sizeof v);
        EXPECT_EQ(v, 10.0 * static_cast<double>(k) + 0.5);
    }
    fs::remove_all(dir);
}

TEST(LiveSnapshot, ReadsTheCommittedRowsOfARunningOutputAndLeavesItAsItWas)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/live.h5", Layout::shards};
    const auto m = test_metadata(5);
    auto lock = prepare_output(options, m);  // held: the output is running
    {
        auto sink = open_rank_sink(options, m, live_fields, 0, 1);
        for (std::uint64_t id = 0; id < 3; ++id) record_live(*sink, id);
        sink->commit();
        record_live(*sink, 3);  // recorded, not committed: not in the snapshot
        const auto before = tree_of(dir);
        std::filesystem::path folder;
        {
            auto snapshot = LiveSnapshot::take(options.path, SnapshotFields::scalar);

            ASSERT_TRUE(snapshot);
            EXPECT_EQ(snapshot->committed(), 3u);
            EXPECT_EQ(snapshot->task_count(), 5u);
            EXPECT_EQ(running_line(snapshot->committed(), snapshot->task_count()), "running: 3 of 5 committed");
            const auto table = read_results_table(snapshot->file().string());
            EXPECT_GE(table.find("v"), 0);
            EXPECT_LT(table.find("curve"), 0);  // scalar fields only
            EXPECT_EQ(table.non_scalar, std::vector<std::string>{});
            folder = snapshot->file().parent_path();
            EXPECT_EQ(folder.string().rfind(dir, 0), std::string::npos);  // not under the output
        }
        EXPECT_FALSE(fs::exists(folder));     // removed with the snapshot
        EXPECT_EQ(tree_of(dir), before);      // nothing created under the output
    }
    lock = OutputLock{};  // released: not running
    EXPECT_FALSE(LiveSnapshot::take(options.path, SnapshotFields::scalar));
    fs::remove_all(dir);
}

TEST(JobOutput, Sha256MatchesKnownDigest)
{
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(JobOutput, Crc32cMatchesKnownCheckValue)
{
    const std::string text = "123456789";
    const std::string long_text(1000, 'x');

    EXPECT_EQ(crc32c(0, text.data(), text.size()), 0xE3069283u);
    EXPECT_EQ(crc32c(crc32c(0, long_text.data(), 333), long_text.data() + 333, 667), crc32c(0, long_text.data(), 1000));
}

TEST(JobOutput, LaneChecksumSeesEveryByteOfEveryLane)
{
    std::vector<unsigned char> data(1000 + 7, 1);
    const auto original = lane_checksum(data.data(), data.size());

    for (const std::size_t at : {0u, 249u, 250u, 499u, 999u, 1006u}) {
        data[at] ^= 0x10;
        EXPECT_NE(lane_checksum(data.data(), data.size()), original) << at;
        data[at] ^= 0x10;
    }
    EXPECT_EQ(lane_checksum(data.data(), data.size()), original);
    EXPECT_NE(lane_checksum(data.data(), 3), 0u);
}

TEST(PrepareOutput, RefusesExistingOutputWithoutResumeOrForce)
{
    const auto dir = testing::scratch_dir();
    OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(10));

    try {
        prepare_output(options, test_metadata(10));
        FAIL() << "no OutputError";
    } catch (const OutputError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find(options.path), std::string::npos) << what;
        EXPECT_NE(what.find("--resume"), std::string::npos) << what;
        EXPECT_NE(what.find("--force"), std::string::npos) << what;
    }
}

TEST(PrepareOutput, ForceDeletesTheOldOutput)
{
    const auto dir = testing::scratch_dir();
    OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(10));
    options.force = true;

    auto lock = prepare_output(options, test_metadata(10));

    EXPECT_FALSE(fs::exists(options.path));
    EXPECT_TRUE(committed_tasks(options, test_metadata(10)).empty());
}

TEST(PrepareOutput, RefusesWhileAnotherRunHoldsTheLock)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    const auto first = prepare_output(options, test_metadata(10));

    EXPECT_THROW(prepare_output(options, test_metadata(10)), OutputError);
}

TEST(PrepareOutput, RefusesADifferentJobOnResume)
{
    const auto dir = testing::scratch_dir();
    OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(10));
    options.resume = true;

    try {
        prepare_output(options, test_metadata(10, 1, 0, R"({"alpha":[0.3]})"));
        FAIL() << "no OutputError";
    } catch (const OutputError& error) {
        EXPECT_NE(std::string(error.what()).find("different job"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("--force"), std::string::npos) << error.what();
    }
}

TEST(PrepareOutput, RefusesAnUnwritableDirectoryEvenForRoot)
{
    // A path below a regular file cannot be created by anyone, root included.
    const OutputOptions options{"/dev/null/shardrun/results.h5"};

    try {
        prepare_output(options, test_metadata(10));
        FAIL() << "no OutputError";
    } catch (const OutputError& error) {
        EXPECT_NE(std::string(error.what()).find("/dev/null/shardrun"), std::string::npos) << error.what();
    }
}

TEST(Resume, SkipsCommittedTasksAndEndsEqualToAnUninterruptedRun)
{
    const auto dir = testing::scratch_dir();
    OutputOptions options{dir + "/results.h5"};
    const auto m = test_metadata(40);
    {
        auto lock = prepare_output(options, m);
        auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
        for (std::uint64_t id = 0; id < 25; ++id) {
            sink->record(test_record(id, 0), test_values(id, test_fields()));
            if (id == 19) sink->commit();  // 20..24 are never committed: "crash"
        }
    }
    options.resume = true;

    const auto done = committed_tasks(options, m);
    const auto summary = run_element(options, m);

    std::vector<std::uint64_t> expected;
    for (std::uint64_t id = 0; id < 20; ++id) {
        if (!testing::fails(id)) expected.push_back(id);
    }
    EXPECT_EQ(done, expected);
    EXPECT_TRUE(summary.complete);
    EXPECT_EQ(check_master(options.path, 40), "");
}

TEST(Resume, ASecondArrayElementFindsOnlyItsOwnCommittedTasks)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    const auto m = test_metadata(20, 2, 1);
    run_element(options, m);

    const auto done = committed_tasks(options, m);

    std::vector<std::uint64_t> expected;
    for (std::uint64_t id = 10; id < 20; ++id) {
        if (!testing::fails(id)) expected.push_back(id);
    }
    EXPECT_EQ(done, expected);
}

TEST(ResultSink, WrongShapedValuesThrowAndTheTaskCanBeRecordedFailed)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    const auto m = test_metadata(3);
    auto lock = prepare_output(options, m);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    auto values = test_values(1, test_fields());
    values[1].resize(values[1].size() - 4);

    EXPECT_THROW(sink->record(test_record(1, 0), values), ResultShapeError);
    auto failed = test_record(1, 0);
    failed.status = TaskStatus::failed;
    sink->record(failed, {});
    sink->record(test_record(0, 0), test_values(0, test_fields()));
    sink->record(test_record(2, 0), test_values(2, test_fields()));
    sink->commit();
    sink.reset();
    const auto summary = finalize_output(options, m, test_fields(), test_params(3), {}, 1);

    EXPECT_EQ(summary.failed, 1u);
    const hid_t file = H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    EXPECT_EQ(testing::read_ints(file, "tasks/status"), (std::vector<std::int64_t>{1, 2, 1}));
    H5Fclose(file);
}

TEST(Merge, TwoArrayElementsGiveTheMasterOfASingleRun)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions whole{dir + "/whole.h5"}, split{dir + "/split.h5"};
    run_element(whole, test_metadata(30));
    const auto first = run_element(split, test_metadata(30, 2, 0), 5);
    const auto second = run_element(split, test_metadata(30, 2, 1), 4);

    const auto report = merge_output(split.path);

    EXPECT_FALSE(first.master_written);
    EXPECT_FALSE(second.master_written);
    EXPECT_TRUE(first.complete);
    EXPECT_TRUE(second.complete);
    EXPECT_EQ(report.exit_code(), 0);
    EXPECT_TRUE(report.summary.complete);
    EXPECT_EQ(check_master(split.path, 30), "");
    const hid_t a = H5Fopen(whole.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t b = H5Fopen(split.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    for (const std::string name : {"params/alpha", "params/n", "tasks/status", "tasks/attempts", "tasks/exit_code",
                                   "results/energy", "results/counts"}) {
        const auto x = testing::read_doubles(a, name), y = testing::read_doubles(b, name);
        ASSERT_EQ(x.size(), y.size()) << name;
        for (std::size_t i = 0; i < x.size(); ++i) {
            EXPECT_TRUE(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) << name << "[" << i << "]";
        }
    }
    H5Fclose(a);
    H5Fclose(b);
}

TEST(Merge, NamesMissingElementsAndFails)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(30, 3, 0));
    run_element(options, test_metadata(30, 3, 2));

    const auto report = merge_output(options.path);

    EXPECT_EQ(report.exit_code(), 1);
    EXPECT_EQ(report.missing_elements, std::vector<int>{1});
    EXPECT_FALSE(report.summary.complete);
    EXPECT_EQ(report.summary.pending, 10u);
}

// Issue 39's trials: an element the platform stopped while its ranks started left only its note
// (scripts/aws-batch/entrypoint writes it beside its folder); merge still counts it missing, and the
// note tells `shardrun merge` to name it as started.
TEST(Merge, AnElementStoppedBeforeItWroteAnythingLeavesOnlyItsNote)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(30, 3, 0));
    std::ofstream(stopped_note_path(options.path, 1)) << "stopped (SIGTERM) on its last attempt before any task finished\n";

    const auto report = merge_output(options.path);

    EXPECT_EQ(report.exit_code(), 1);
    EXPECT_EQ(report.missing_elements, (std::vector<int>{1, 2}));
    const auto notes = stopped_notes(options.path);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes.at(1), "stopped (SIGTERM) on its last attempt before any task finished");
    EXPECT_EQ(stopped_note_path(options.path, 1), fs::path(options.path + ".shards/a1.stopped"));
}

// Issue 39's trials: before any commit there is no rank row, so no header over nothing.
TEST(Status, NoRankHeaderBeforeAnyCommit)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    const auto metadata = test_metadata(20);
    {
        auto lock = prepare_output(options, metadata);
        auto sink = open_rank_sink(options, metadata, test_fields(), 0, 1);
    }

    const auto report = status_report(options.path);

    EXPECT_TRUE(report.ranks.empty());
    EXPECT_EQ(report.pending, 20u);
    EXPECT_EQ(status_text(report).find("element  rank"), std::string::npos) << status_text(report);
    EXPECT_EQ(status_text(report, true).find("mean task"), std::string::npos) << status_text(report, true);
}

TEST(Status, CountsPerElementAndRankAndShowsStderr)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    fs::create_directories(options.path + ".tasks/3");
    std::ofstream(options.path + ".tasks/3/stderr") << "line 1\nline 2\nboom: bad alpha\n";
    run_element(options, test_metadata(20, 2, 0));

    const auto report = status_report(options.path, 2);

    EXPECT_EQ(report.task_count, 20u);
    EXPECT_EQ(report.missing_elements, std::vector<int>{1});
    EXPECT_FALSE(report.complete);
    EXPECT_EQ(report.pending, 10u);
    ASSERT_EQ(report.ranks.size(), 1u);
    EXPECT_EQ(report.ranks[0].ok + report.ranks[0].failed, 10u);
    ASSERT_FALSE(report.failed_tasks.empty());
    EXPECT_EQ(report.failed_tasks[0].task_id, 3u);
    EXPECT_EQ(report.failed_tasks[0].exit_code, 43);
    EXPECT_EQ(report.failed_tasks[0].stderr_tail, (std::vector<std::string>{"line 2", "boom: bad alpha"}));
    EXPECT_NE(status_json(report).find("\"missing_elements\":[1]"), std::string::npos) << status_json(report);
}

TEST(Status, ElementOutputNamesItsShardsAndTheMergeCommand)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/results.h5"};
    run_element(options, test_metadata(20, 2, 1));

    const auto report = status_report(options.path);
    const auto text = status_text(report);

    EXPECT_NE(text.find("array element 1 of 2 finished; its results: " + options.path + ".shards/a1/\n"),
              std::string::npos) << text;
    EXPECT_NE(text.find("when all 2 have finished: shardrun merge " + options.path + "\n"), std::string::npos) << text;
    EXPECT_NE(status_json(report).find("\"finished_elements\":[1]"), std::string::npos) << status_json(report);
}

}  // namespace
}  // namespace shardrun::io
