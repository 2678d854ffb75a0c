// Kill -9 at several instants of a commit, torn and corrupt segments, a full disk: every
// committed batch is found again, nothing torn is used, and a resume ends like a clean run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "io/job_output.hpp"
#include "io/shards/segment.hpp"
#include "output_test_support.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

using testing::test_fields;
using testing::test_record;
using testing::test_values;

constexpr std::uint64_t batch = 10;
constexpr std::uint64_t task_count = 60;

const char* kill_stage = nullptr;

void kill_at_stage(const char* stage)
{
    if (kill_stage && std::strcmp(stage, kill_stage) == 0) raise(SIGKILL);
}

/** Child: commits batches 0, 1, 2 (reporting each on `report`), then dies as `how` says in batch 3. */
[[noreturn]] void child_writes(const OutputOptions& options, const std::string& how, int report)
{
    const auto m = testing::test_metadata(task_count);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    for (std::uint64_t b = 0; b < 4; ++b) {
        for (auto id = b * batch; id < (b + 1) * batch; ++id) {
            sink->record(test_record(id, 0), test_values(id, test_fields()));
            if (b == 3 && id == b * batch + 4 && how == "mid_batch") raise(SIGKILL);
        }
        if (b == 3) {
            kill_stage = how.c_str();
            shards::segment_commit_hook = kill_at_stage;
        }
        sink->commit();
        const char done = static_cast<char>(b);
        if (write(report, &done, 1) != 1) _exit(3);
    }
    _exit(0);
}

std::vector<std::uint64_t> ok_ids(std::uint64_t end)
{
    std::vector<std::uint64_t> ids;
    for (std::uint64_t id = 0; id < end; ++id) {
        if (!testing::fails(id)) ids.push_back(id);
    }
    return ids;
}

/** Runs the rest of the job with --resume and returns check_master's verdict. */
std::string resume_and_check(OutputOptions options, std::uint64_t tasks = task_count)
{
    options.resume = true;
    const auto m = testing::test_metadata(tasks);
    auto lock = prepare_output(options, m);
    const auto done = committed_tasks(options, m);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    for (std::uint64_t id = 0; id < tasks; ++id) {
        if (!std::binary_search(done.begin(), done.end(), id)) sink->record(test_record(id, 0), test_values(id, test_fields()));
    }
    sink->commit();
    sink.reset();
    finalize_output(options, m, test_fields(), testing::test_params(tasks), {}, 1);
    return testing::check_master(options.path, tasks);
}

class KillPoint : public ::testing::TestWithParam<std::string> {};

TEST_P(KillPoint, CommittedBatchesSurviveAndTheTornOneIsInvisible)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    const auto m = testing::test_metadata(task_count);
    { auto lock = prepare_output(options, m); }
    int report[2];
    ASSERT_EQ(pipe(report), 0);

    const pid_t child = fork();
    if (child == 0) child_writes(options, GetParam(), report[1]);
    close(report[1]);
    int status = 0;
    waitpid(child, &status, 0);
    std::string reported;
    char byte;
    while (read(report[0], &byte, 1) == 1) reported += byte;
    close(report[0]);
    const auto found = committed_tasks(options, m);

    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
    EXPECT_EQ(reported.size(), 3u);
    // Killed after the rename, the batch is durable though commit() never returned.
    EXPECT_EQ(found, ok_ids(GetParam() == "renamed" ? 4 * batch : 3 * batch));
    EXPECT_EQ(resume_and_check(options), "");
}

INSTANTIATE_TEST_SUITE_P(Stages, KillPoint, ::testing::Values("mid_batch", "temp_written", "renamed"));

/** Segments of element 0 left on disk, every rank. */
std::size_t segments_left(const std::string& path)
{
    std::size_t count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(path + ".shards/a0")) {
        count += entry.path().extension() == ".h5" && entry.path().filename() != "params.h5";
    }
    return count;
}

class DropKillPoint : public ::testing::TestWithParam<int> {};

// A complete master drops the segments (results stored once); a kill -9 after any number of
// removed files leaves a complete master that resume and status read with whatever is left.
TEST_P(DropKillPoint, AKillWhileTheShardsGoLeavesACompleteMasterThatResumeAndStatusHandle)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    const auto m = testing::test_metadata(task_count);
    {
        auto lock = prepare_output(options, m);
        auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
        for (std::uint64_t id = 0; id < task_count; ++id) {
            sink->record(test_record(id, 0), test_values(id, test_fields()));
            if ((id + 1) % batch == 0) sink->commit();
        }
    }
    ASSERT_EQ(segments_left(options.path), task_count / batch);
    const pid_t child = fork();
    if (child == 0) {
        ::setenv("SHARDRUN_TEST_KILL_DROP_AFTER", std::to_string(GetParam()).c_str(), 1);
        finalize_output(options, m, test_fields(), testing::test_params(task_count), {}, 1);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);

    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child status " << status;
    EXPECT_EQ(segments_left(options.path), task_count / batch - std::min<std::size_t>(GetParam(), task_count / batch));
    EXPECT_EQ(testing::check_master(options.path, task_count), "");  // says complete, and is
    EXPECT_EQ(committed_tasks(options, m), ok_ids(task_count));
    const auto report = status_report(options.path);
    EXPECT_TRUE(report.complete);
    EXPECT_EQ(report.ok, ok_ids(task_count).size());
    EXPECT_EQ(report.pending, 0u);
    EXPECT_EQ(resume_and_check(options), "");  // reruns the failed tasks over the master
    EXPECT_EQ(segments_left(options.path), 0u);
    EXPECT_FALSE(fs::exists(options.path + ".shards/a0/params.h5"));
    EXPECT_EQ(merge_output(options.path).exit_code(), 0);
    EXPECT_EQ(testing::check_master(options.path, task_count), "");
}

// 0: the manifest says consolidated, nothing removed yet; 6: every segment gone, params.h5 left.
INSTANTIATE_TEST_SUITE_P(Removed, DropKillPoint, ::testing::Values(0, 1, 3, 6));

TEST(CrashSafety, KillAtAnUnplannedInstantLosesNoCommittedBatch)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    const auto m = testing::test_metadata(100000);
    { auto lock = prepare_output(options, m); }
    int report[2];
    ASSERT_EQ(pipe(report), 0);
    const pid_t child = fork();
    if (child == 0) {
        auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
        for (std::uint64_t id = 0;; ++id) {
            sink->record(test_record(id, 0), test_values(id, test_fields()));
            if ((id + 1) % batch != 0) continue;
            sink->commit();
            const char done = 1;
            if (write(report[1], &done, 1) != 1) _exit(3);
        }
    }
    close(report[1]);
    std::uint64_t batches = 0;
    char byte;
    while (batches < 5 && read(report[0], &byte, 1) == 1) ++batches;

    kill(child, SIGKILL);  // somewhere inside batch 6 or 7
    waitpid(child, nullptr, 0);
    close(report[0]);
    const auto found = committed_tasks(options, m);

    ASSERT_EQ(batches, 5u);
    ASSERT_GE(found.size(), ok_ids(5 * batch).size());
    const auto whole_batches = (found.back() / batch) + 1;  // only whole batches may appear
    EXPECT_EQ(found, ok_ids(whole_batches * batch));
}

/** Commits tasks [0, 40) in batches of 8 without finalizing. */
void write_batches(const OutputOptions& options)
{
    const auto m = testing::test_metadata(task_count);
    auto lock = prepare_output(options, m);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    for (std::uint64_t id = 0; id < 40; ++id) {
        sink->record(test_record(id, 0), test_values(id, test_fields()));
        if ((id + 1) % 8 == 0) sink->commit();
    }
}

TEST(CrashSafety, TruncatedAndCorruptSegmentsAreDetectedAndRerun)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    write_batches(options);
    const auto segments = options.path + ".shards/a0/r0/";
    fs::resize_file(segments + "00000002.h5", fs::file_size(segments + "00000002.h5") / 2);
    // Change the stored energy of task 9 (90.0) in segment 1 without touching its structure.
    std::fstream file(segments + "00000001.h5", std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(file)), {});
    const double energy = 90.0, changed = 91.0;
    const auto at = bytes.find(std::string(reinterpret_cast<const char*>(&energy), sizeof energy));
    ASSERT_NE(at, std::string::npos);
    file.seekp(static_cast<std::streamoff>(at));
    file.write(reinterpret_cast<const char*>(&changed), sizeof changed);
    file.close();

    const auto found = committed_tasks(options, testing::test_metadata(task_count));

    std::vector<std::uint64_t> expected;
    for (const auto id : ok_ids(40)) {
        if (id < 8 || id >= 24) expected.push_back(id);
    }
    EXPECT_EQ(found, expected);
    EXPECT_EQ(resume_and_check(options), "");
}

/** Child: under a 16 KiB file size limit, commits two small batches, then a big one that cannot fit. */
[[noreturn]] void child_fills_disk(const OutputOptions& options, const JobMetadata& m, int report)
{
    signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG, as on a full disk
    const rlimit limit{16 * 1024, 16 * 1024};  // a 10-task segment takes about 13 KiB
    setrlimit(RLIMIT_FSIZE, &limit);
    auto sink = open_rank_sink(options, m, test_fields(), 0, 1);
    try {
        for (std::uint64_t id = 0; id < m.task_count; ++id) {
            sink->record(test_record(id, 0), test_values(id, test_fields()));
            if (id == 9 || id == 19) sink->commit();  // small batches fit, the last one does not
        }
        sink->commit();
    } catch (const WriteError& error) {
        const std::string what = error.what();
        if (write(report, what.data(), what.size()) < 0) _exit(3);
        _exit(0);
    }
    _exit(1);
}

TEST(CrashSafety, FullDiskGivesAClearErrorAndKeepsEarlierBatches)
{
    const OutputOptions options{testing::scratch_dir() + "/results.h5"};
    const std::uint64_t tasks = 400;  // the last batch, 380 tasks, outgrows the limit
    const auto m = testing::test_metadata(tasks);
    { auto lock = prepare_output(options, m); }
    int report[2];
    ASSERT_EQ(pipe(report), 0);

    const pid_t child = fork();
    if (child == 0) child_fills_disk(options, m, report[1]);
    close(report[1]);
    int status = 0;
    waitpid(child, &status, 0);
    std::string message;
    char byte;
    while (read(report[0], &byte, 1) == 1) message += byte;
    close(report[0]);

    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    EXPECT_NE(message.find(options.path + ".shards/a0/r0/00000002.h5.tmp"), std::string::npos) << message;
    EXPECT_NE(message.find("--resume"), std::string::npos) << message;
    EXPECT_NE(message.find(": File too large; free disk space"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "the message must be one line: " << message;
    EXPECT_EQ(message.find("H5F"), std::string::npos) << "no HDF5 internals in the message: " << message;
    EXPECT_FALSE(fs::exists(options.path + ".shards/a0/r0/00000002.h5.tmp"));
    EXPECT_EQ(committed_tasks(options, m), ok_ids(20));
    EXPECT_EQ(resume_and_check(options, tasks), "");
}

}  // namespace
}  // namespace shardrun::io
