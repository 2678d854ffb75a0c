// The kernel task kinds reading their rows from HDF5 datasets (data.input).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "tests/support/h5_fixture.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/tasks/registry.hpp"

namespace {

using namespace shardrun;
using namespace shardrun::tasks;
using shardrun::test::temp_path;
using shardrun::test::write_dataset;

/** The built-in kind `name`, as a job would get it. */
std::unique_ptr<TaskKind> make(const std::string& name) { return find_task_kind(name)->make(job::JobSpec{}); }

TaskOutcome run(const TaskKind& kind, const job::ParamMap& params, job::DataRange range, const std::string& input)
{
    TaskContext context;
    context.params = &params;
    context.range = range;
    context.input = input;
    return kind.run(context);
}

TEST(KernelKindsInput, BlurReadsItsRangeOfImages)
{
    const auto file = temp_path("blur_in.h5");
    write_dataset(file, "/images", {5, 4, 4}, std::vector<float>(80, 2.0f), H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    job::ParamMap params;
    params.set("height", std::int64_t{4});
    params.set("chunk", std::int64_t{2});

    const auto outcome = run(*make("blur"), params, {3, 5}, file + ":/images");

    std::remove(file.c_str());
    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    float first = 0.0f;
    std::memcpy(&first, outcome.values[0].data(), 4);
    EXPECT_NEAR(first, 2.0f, 1e-5f);  // a constant image stays constant
}

TEST(KernelKindsInput, BlurFailsOnAWrongRankOrImageSize)
{
    const auto file = temp_path("blur_rank.h5");
    write_dataset(file, "/flat", {5, 16}, std::vector<float>(80, 1.0f), H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    job::ParamMap params;
    params.set("height", std::int64_t{4});

    const auto outcome = run(*make("blur"), params, {0, 1}, file + ":/flat");

    std::remove(file.c_str());
    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_NE(outcome.message.find("rank 3"), std::string::npos) << outcome.message;
    EXPECT_TRUE(outcome.values.empty());
}

TEST(KernelKindsInput, EmbedFailsOnAFloat64Dataset)
{
    const auto file = temp_path("embed_dtype.h5");
    write_dataset(file, "/rows", {3, 8}, std::vector<double>(24, 1.0), H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE);
    job::ParamMap params;
    params.set("input_dim", std::int64_t{8});

    const auto outcome = run(*make("embed"), params, {0, 1}, file + ":/rows");

    std::remove(file.c_str());
    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_NE(outcome.message.find("dtype float64"), std::string::npos) << outcome.message;
}

TEST(KernelKindsInput, EmbedReadsRowsAndWeightsFromFiles)
{
    const auto rows = temp_path("embed_rows.h5"), weights = temp_path("embed_w.h5");
    write_dataset(rows, "/rows", {3, 2}, std::vector<float>{3, 4, 0, 2, -1, 0}, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    write_dataset(weights, "/W", {2, 2}, std::vector<float>{1, 0, 0, 1}, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE);
    job::ParamMap params;
    params.set("input_dim", std::int64_t{2});
    params.set("output_dim", std::int64_t{2});
    params.set("chunk", std::int64_t{2});
    params.set("activation", std::string("identity"));
    params.set("weights", weights + ":/W");

    const auto outcome = run(*make("embed"), params, {0, 2}, rows + ":/rows");

    std::remove(rows.c_str());
    std::remove(weights.c_str());
    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    std::vector<float> e(4);
    std::memcpy(e.data(), outcome.values[0].data(), 16);
    EXPECT_EQ(e, (std::vector<float>{0.6f, 0.8f, 0.0f, 1.0f}));  // [3,4]/5 and [0,2]/2
}

}  // namespace
