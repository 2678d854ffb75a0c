// Large result rows (io/hdf5/row_chunks.hpp): a chunk per row in segments and master, written
// straight from the task's buffer and copied by H5Dwrite_chunk; checksums, fill, resume, merge.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "io/hdf5/row_chunks.hpp"
#include "io/job_output.hpp"
#include "io/layout/output_layout.hpp"
#include "output_test_support.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

using testing::fails;
using testing::test_metadata;
using testing::test_params;
using testing::test_record;
using testing::test_values;

/** big: 256 KiB a row (a chunk per row); energy: a scalar (contiguous, through the batch). */
std::vector<FieldSpec> large_fields()
{
    return {FieldSpec{"big", DType::float32, {65536}, ""}, FieldSpec{"energy", DType::float64, {}, "J"}};
}

/** Records tasks [first, end) on rank 0, committing every `batch` and at the end. */
void record_tasks(const OutputOptions& options, const JobMetadata& m, std::uint64_t first, std::uint64_t end,
                  std::uint64_t batch)
{
    auto sink = open_rank_sink(options, m, large_fields(), 0, 1);
    for (auto id = first; id < end; ++id) {
        sink->record(test_record(id, 0), test_values(id, large_fields()));
        if ((id - first + 1) % batch == 0) sink->commit();
    }
    sink->commit();
}

/** "" when every row of the master's big and energy is test_values' (fill for failed tasks), else the first mismatch. */
std::string check_large_master(const std::string& path, std::uint64_t tasks, const std::vector<std::uint64_t>& pending = {},
                               std::uint64_t rerun_ok = ~std::uint64_t{0})
{
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) return "cannot open " + path;
    std::string problem;
    const auto fields = large_fields();
    for (std::size_t f = 0; f < fields.size() && problem.empty(); ++f) {
        const auto values = testing::read_doubles(file, "results/" + fields[f].name);
        for (std::uint64_t id = 0; id < tasks && problem.empty(); ++id) {
            const bool missing = (fails(id) && id != rerun_ok) || std::find(pending.begin(), pending.end(), id) != pending.end();
            for (std::size_t k = 0; k < fields[f].elements(); k += 4099) {
                const double got = values[id * fields[f].elements() + k];
                const double exact = testing::expected_value(id, f, k);
                const double want = fields[f].dtype == DType::float32 ? double(static_cast<float>(exact)) : exact;
                if (missing ? !std::isnan(got) : got != want) {
                    problem = fields[f].name + " of task " + std::to_string(id) + "[" + std::to_string(k) + "] = " +
                              std::to_string(got);
                    break;
                }
            }
        }
    }
    H5Fclose(file);
    return problem;
}

/** Task `id`'s values (as test_values() gives an ok task's), whether or not the task fails in test_record(). */
TaskValues values_of(std::uint64_t id)
{
    TaskValues values;
    const auto fields = large_fields();
    for (std::size_t f = 0; f < fields.size(); ++f) {
        const auto& field = fields[f];
        auto& bytes = values.emplace_back(field.bytes());
        for (std::size_t k = 0; k < field.elements(); ++k) {
            const double v = testing::expected_value(id, f, k);
            const float v32 = static_cast<float>(v);
            if (field.dtype == DType::float32) std::memcpy(bytes.data() + k * 4, &v32, 4);
            else std::memcpy(bytes.data() + k * 8, &v, 8);
        }
    }
    return values;
}

/** The layout of /results/<name> in `path` and the bytes it takes on disk. */
std::pair<H5D_layout_t, hsize_t> layout_of(const std::string& path, const std::string& name)
{
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, ("results/" + name).c_str(), H5P_DEFAULT);
    const hid_t dcpl = H5Dget_create_plist(dataset);
    const auto result = std::pair{H5Pget_layout(dcpl), H5Dget_storage_size(dataset)};
    H5Pclose(dcpl);
    H5Dclose(dataset);
    H5Fclose(file);
    return result;
}

TEST(LargeRows, SegmentsAndMasterHoldEachRowAsOneChunkAndFailedRowsTakeNoSpace)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/out.h5"};
    const std::uint64_t tasks = 23;
    const auto m = test_metadata(tasks);
    ASSERT_TRUE(hdf5::chunked_per_row(large_fields()[0]));
    ASSERT_FALSE(hdf5::chunked_per_row(large_fields()[1]));
    {
        auto lock = prepare_output(options, m);
        record_tasks(options, m, 0, tasks, 8);
        const auto segments = layout::segments(layout::rank_dir(options.path, 0, 0));
        ASSERT_EQ(segments.size(), 3u);
        EXPECT_EQ(layout_of(segments[0], "big").first, H5D_CHUNKED);
        EXPECT_EQ(layout_of(segments[0], "energy").first, H5D_CONTIGUOUS);
        const auto summary = finalize_output(options, m, large_fields(), test_params(tasks), {}, 1);
        EXPECT_TRUE(summary.complete);
    }
    EXPECT_EQ(check_large_master(options.path, tasks), "");
    const auto [layout, bytes] = layout_of(options.path, "big");
    EXPECT_EQ(layout, H5D_CHUNKED);
    std::uint64_t ok = 0;
    for (std::uint64_t id = 0; id < tasks; ++id) ok += fails(id) ? 0 : 1;
    EXPECT_EQ(bytes, ok * large_fields()[0].bytes());  // a failed task's row is the fill value, unstored
    fs::remove_all(dir);
}

TEST(LargeRows, AKillMidBatchLeavesOnlyATempThatTheNextSinkRemoves)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/out.h5"};
    const std::uint64_t tasks = 12;
    const auto m = test_metadata(tasks);
    auto lock = prepare_output(options, m);
    const pid_t child = fork();
    if (child == 0) {
        // 8 committed, 3 recorded into the next segment's temp; then dies with the sink open.
        auto sink = open_rank_sink(options, m, large_fields(), 0, 1);
        for (std::uint64_t id = 0; id < 11; ++id) {
            sink->record(test_record(id, 0), test_values(id, large_fields()));
            if (id == 7) sink->commit();
        }
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    const auto temp = layout::segment_path(layout::rank_dir(options.path, 0, 0), 1).string() + ".tmp";
    EXPECT_TRUE(fs::exists(temp));
    EXPECT_EQ(committed_tasks(options, m), (std::vector<std::uint64_t>{0, 1, 2, 4, 5, 6, 7}));  // 3 failed
    record_tasks(options, m, 8, tasks, 8);  // a resumed rank: the torn temp goes first
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_TRUE(finalize_output(options, m, large_fields(), test_params(tasks), {}, 1).complete);
    EXPECT_EQ(check_large_master(options.path, tasks), "");
    fs::remove_all(dir);
}

TEST(LargeRows, ACorruptRowFailsItsSegmentsChecksumAndItsTasksStayPending)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/out.h5"};
    const std::uint64_t tasks = 16;
    const auto m = test_metadata(tasks);
    auto lock = prepare_output(options, m);
    record_tasks(options, m, 0, tasks, 8);
    // Flip a byte inside task 9's row (segment 1, row 1): only its chunk holds that byte.
    const auto segment = layout::segments(layout::rank_dir(options.path, 0, 0)).at(1);
    haddr_t offset = 0;
    {
        const hid_t file = H5Fopen(segment.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        const hid_t dataset = H5Dopen2(file, "results/big", H5P_DEFAULT);
        const hsize_t at[2] = {1, 0};
        hsize_t size = 0;
        ASSERT_GE(H5Dget_chunk_info_by_coord(dataset, at, nullptr, &offset, &size), 0);
        H5Dclose(dataset);
        H5Fclose(file);
    }
    {
        std::fstream bytes(segment, std::ios::in | std::ios::out | std::ios::binary);
        bytes.seekg(static_cast<std::streamoff>(offset + 1000));
        char c = 0;
        bytes.read(&c, 1);
        c = static_cast<char>(c ^ 0x40);
        bytes.seekp(static_cast<std::streamoff>(offset + 1000));
        bytes.write(&c, 1);
    }
    const auto summary = finalize_output(options, m, large_fields(), test_params(tasks), {}, 1);
    EXPECT_FALSE(summary.complete);
    std::vector<std::uint64_t> pending;
    for (std::uint64_t id = 8; id < 16; ++id) pending.push_back(id);
    EXPECT_EQ(check_large_master(options.path, tasks, pending), "");
    fs::remove_all(dir);
}

TEST(LargeRows, AMergeOfTwoElementsCopiesEveryRow)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/split.h5"};
    const std::uint64_t tasks = 20;
    for (int element = 0; element < 2; ++element) {
        const auto m = test_metadata(tasks, 2, element);
        auto lock = prepare_output(options, m);
        record_tasks(options, m, m.first_task, m.end_task, 3);
        finalize_output(options, m, large_fields(), test_params(tasks), {}, 1);
    }
    const auto report = merge_output(options.path);
    EXPECT_EQ(report.exit_code(), 0);
    EXPECT_EQ(check_large_master(options.path, tasks), "");
    EXPECT_EQ(layout_of(options.path, "big").first, H5D_CHUNKED);
    fs::remove_all(dir);
}

TEST(LargeRows, AResumeAfterConsolidationCopiesTheOldMastersRowsAndTheRerunOne)
{
    const auto dir = testing::scratch_dir();
    const OutputOptions options{dir + "/out.h5"};
    const std::uint64_t tasks = 12;
    const auto m = test_metadata(tasks);
    {
        auto lock = prepare_output(options, m);
        record_tasks(options, m, 0, tasks, 5);
        EXPECT_TRUE(finalize_output(options, m, large_fields(), test_params(tasks), {}, 1).complete);
    }
    EXPECT_TRUE(layout::segments(layout::rank_dir(options.path, 0, 0)).empty());  // consolidated: the master holds them
    const OutputOptions resume{options.path, Layout::shards, true};
    {
        auto lock = prepare_output(resume, m);
        auto sink = open_rank_sink(resume, m, large_fields(), 0, 1);
        auto record = test_record(3, 0);  // task 3 failed; rerun, it succeeds
        record.status = TaskStatus::ok;
        record.exit_code = 0;
        record.start += 100;
        record.end += 100;
        sink->record(record, values_of(3));
        sink->commit();
        sink.reset();
        EXPECT_TRUE(finalize_output(resume, m, large_fields(), test_params(tasks), {}, 1).complete);
    }
    EXPECT_EQ(check_large_master(options.path, tasks, {}, 3), "");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace shardrun::io
