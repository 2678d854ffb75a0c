#include "runner/tasks/noop_kind.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::tasks {
namespace {

template <typename T>
T scalar(const std::vector<std::byte>& bytes)
{
    T value{};
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

TEST(NoopKind, DeclaresValueAndItems)
{
    const NoopKind kind;

    const auto fields = kind.fields({});

    ASSERT_EQ(fields.size(), 2u);
    EXPECT_EQ(fields[0].name, "value");
    EXPECT_EQ(fields[0].dtype, io::DType::float64);
    EXPECT_EQ(fields[1].name, "items");
    EXPECT_EQ(fields[1].dtype, io::DType::int64);
}

TEST(NoopKind, ReportsItsIdAndRangeLength)
{
    const NoopKind kind;
    const job::ParamMap params;
    TaskContext context;
    context.task_id = 42;
    context.params = &params;
    context.range = job::DataRange{10, 25};

    const auto outcome = kind.run(context);

    EXPECT_EQ(outcome.status, io::TaskStatus::ok);
    ASSERT_EQ(outcome.values.size(), 2u);
    EXPECT_EQ(scalar<double>(outcome.values[0]), 42.0);
    EXPECT_EQ(scalar<std::int64_t>(outcome.values[1]), 15);
    EXPECT_EQ(outcome.values[0].size(), kind.fields(params)[0].bytes());
    EXPECT_EQ(outcome.values[1].size(), kind.fields(params)[1].bytes());
}

TEST(NoopKind, WithoutRangeItemsIsZero)
{
    const NoopKind kind;
    const job::ParamMap params;
    TaskContext context;
    context.task_id = 3;
    context.params = &params;

    const auto outcome = kind.run(context);

    ASSERT_EQ(outcome.values.size(), 2u);
    EXPECT_EQ(scalar<double>(outcome.values[0]), 3.0);
    EXPECT_EQ(scalar<std::int64_t>(outcome.values[1]), 0);
}

TEST(NoopKind, RegistryKnowsExecAndNoop)
{
    const auto names = task_kind_names();
    const auto spec = job::parse_job("job.yaml", "task: noop\n", {}, names);

    const auto kind = make_task_kind(spec);

    EXPECT_NE(std::find(names.begin(), names.end(), "exec"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "noop"), names.end());
    EXPECT_EQ(kind->name(), "noop");
    EXPECT_FALSE(kind->uses_task_dir());
}

TEST(NoopKind, RegistryRejectsAnUnknownKind)
{
    job::JobSpec spec;
    spec.file = "job.yaml";
    spec.task = "nonsense";

    EXPECT_THROW(make_task_kind(spec), JobFileError);
}

}  // namespace
}  // namespace shardrun::tasks
