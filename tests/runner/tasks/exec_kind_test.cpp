#include "runner/tasks/exec_kind.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/task_space.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::tasks {
namespace {

using shardrun::testing::TempDir;

// Prints the task's environment and argv, and writes its result file.
const char* const report_script =
    "echo arg=$1; echo id=$SHARDRUN_TASK_ID; echo count=$SHARDRUN_TASK_COUNT; echo alpha=$SHARDRUN_PARAM_ALPHA; "
    "echo name=$SHARDRUN_PARAM_MY_NAME; echo start=$SHARDRUN_RANGE_START; echo end=$SHARDRUN_RANGE_END; "
    "echo result=$SHARDRUN_RESULT; echo extra=$EXTRA; echo stale=$SHARDRUN_PARAM_STALE; "
    "echo cuda=${{CUDA_VISIBLE_DEVICES-unset}}; echo to-stderr >&2; "
    "printf '{{\"energy\": %s, \"pair\": [%s, 2]}}' $SHARDRUN_PARAM_ALPHA $SHARDRUN_TASK_ID > $SHARDRUN_RESULT";

job::ExecSpec exec_spec(std::vector<std::string> argv, bool with_results = true)
{
    job::ExecSpec spec;
    spec.argv = std::move(argv);
    spec.env = {{"EXTRA", "rank{rank}-task{task_id}"}};
    if (with_results) {
        spec.results = {{"energy", io::DType::float64, {}, ""}, {"pair", io::DType::int32, {2}, ""}};
    }
    return spec;
}

struct ExecFixture {
    TempDir dir;
    job::ParamMap params;
    TaskContext context;

    ExecFixture()
    {
        params.set("alpha", 0.5);
        params.set("my-name", std::string("v w"));
        context.task_id = 7;
        context.task_count = 20;
        context.params = &params;
        context.range = job::DataRange{40, 48};
        context.rank = 3;
        context.task_dir = dir.file("tasks/7");
    }
};

template <typename T>
T value_at(const std::vector<std::byte>& bytes, size_t index)
{
    T value{};
    std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
    return value;
}

TEST(ExecKind, TaskSeesItsEnvironmentArgvAndWritesResults)
{
    ExecFixture fixture;
    ::setenv("SHARDRUN_PARAM_STALE", "leaked", 1);
    ::setenv("CUDA_VISIBLE_DEVICES", "5", 1);
    const ExecKind kind(exec_spec({"sh", "-c", report_script, "sh", "{alpha}-{my-name}"}), 0, 1);
    ::unsetenv("SHARDRUN_PARAM_STALE");
    ::unsetenv("CUDA_VISIBLE_DEVICES");

    const auto outcome = kind.run(fixture.context);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    const auto out = fixture.dir.read("tasks/7/stdout");
    EXPECT_NE(out.find("arg=0.5-v w\n"), std::string::npos) << out;
    EXPECT_NE(out.find("id=7\n"), std::string::npos) << out;
    EXPECT_NE(out.find("count=20\n"), std::string::npos) << out;
    EXPECT_NE(out.find("alpha=0.5\n"), std::string::npos) << out;
    EXPECT_NE(out.find("name=v w\n"), std::string::npos) << out;
    EXPECT_NE(out.find("start=40\n"), std::string::npos) << out;
    EXPECT_NE(out.find("end=48\n"), std::string::npos) << out;
    // Results go to the running slot's scratch folder beside the task folders, not to the task's.
    EXPECT_NE(out.find("result=" + fixture.dir.file("tasks") + "/.scratch-"), std::string::npos) << out;
    EXPECT_NE(out.find(".results/result.json\n"), std::string::npos) << out;
    EXPECT_NE(out.find("extra=rank3-task7\n"), std::string::npos) << out;
    EXPECT_NE(out.find("stale=\n"), std::string::npos) << out;
    EXPECT_NE(out.find("cuda=unset\n"), std::string::npos) << out;
    EXPECT_EQ(fixture.dir.read("tasks/7/stderr"), "to-stderr\n");
    ASSERT_EQ(outcome.values.size(), 2u);
    EXPECT_EQ(value_at<double>(outcome.values[0], 0), 0.5);
    EXPECT_EQ(value_at<std::int32_t>(outcome.values[1], 0), 7);
    EXPECT_EQ(value_at<std::int32_t>(outcome.values[1], 1), 2);
}

TEST(ExecKind, NonZeroExitFailsTheTaskWithItsStatus)
{
    ExecFixture fixture;
    const ExecKind kind(exec_spec({"sh", "-c", "exit 3"}), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_EQ(outcome.exit_code, 3);
    EXPECT_TRUE(outcome.values.empty());
}

TEST(ExecKind, CommandNotFoundIs127)
{
    ExecFixture fixture;
    const ExecKind kind(exec_spec({"shardrun-test-no-such-program", "{alpha}"}), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_EQ(outcome.exit_code, 127);
    EXPECT_NE(outcome.message.find("command not found"), std::string::npos) << outcome.message;
}

TEST(ExecKind, MissingDeclaredResultFailsTheTask)
{
    ExecFixture fixture;
    const ExecKind kind(exec_spec({"sh", "-c", "echo '{{\"energy\": 1}}' > $SHARDRUN_RESULT"}), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_NE(outcome.message.find("'pair'"), std::string::npos) << outcome.message;
}

TEST(ExecKind, StaleResultFileOfAnEarlierAttemptIsNotReused)
{
    ExecFixture fixture;
    const ExecKind writes(exec_spec({"sh", "-c", "echo '{{\"energy\": 1, \"pair\": [1, 2]}}' > $SHARDRUN_RESULT"}), 0, 1);
    const ExecKind silent(exec_spec({"true"}), 0, 1);
    ASSERT_EQ(writes.run(fixture.context).status, io::TaskStatus::ok);

    const auto outcome = silent.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
}

TEST(ExecKind, NoDeclaredResultsNeedsNoResultFile)
{
    ExecFixture fixture;
    const ExecKind kind(exec_spec({"true"}, false), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    EXPECT_TRUE(outcome.values.empty());
}

TEST(ExecKind, TimeoutFailsTheTaskWith124)
{
    ExecFixture fixture;
    const ExecKind kind(exec_spec({"sleep", "30"}), 0.3, 0.2);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_EQ(outcome.exit_code, 124);
}

TEST(ExecKind, AttemptIsAvailableToTheTask)
{
    ExecFixture fixture;
    fixture.context.attempt = 2;
    const ExecKind kind(exec_spec({"sh", "-c", "echo {attempt}"}, false), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    EXPECT_EQ(fixture.dir.read("tasks/7/stdout"), "2\n");
}

TEST(ExecKind, UsesATaskDirectory)
{
    const ExecKind kind(exec_spec({"true"}), 0, 1);

    const bool uses = kind.uses_task_dir();

    EXPECT_TRUE(uses);
}

TEST(ExecKind, ExecEnvOverridesAnInheritedVariable)
{
    ExecFixture fixture;
    ::setenv("EXEC_KIND_TEST_LEVEL", "from-parent", 1);
    auto spec = exec_spec({"env"}, false);
    spec.env = {{"EXEC_KIND_TEST_LEVEL", "from-job"}};
    const ExecKind kind(spec, 0, 1);
    ::unsetenv("EXEC_KIND_TEST_LEVEL");

    const auto outcome = kind.run(fixture.context);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    const auto out = fixture.dir.read("tasks/7/stdout");
    EXPECT_NE(out.find("EXEC_KIND_TEST_LEVEL=from-job\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("EXEC_KIND_TEST_LEVEL=from-parent"), std::string::npos)
        << "the inherited value is still in the task's environment (getenv returns the first match)";
}

TEST(ExecKind, BoundCudaDeviceIsVisibleToTheTask)
{
    ExecFixture fixture;
    fixture.context.device.cuda = true;
    fixture.context.device.ordinal = 0;
    fixture.context.device.visible_id = "3";
    const ExecKind kind(exec_spec({"sh", "-c", "echo $CUDA_VISIBLE_DEVICES {device}"}, false), 0, 1);

    const auto outcome = kind.run(fixture.context);

    ASSERT_EQ(outcome.status, io::TaskStatus::ok) << outcome.message;
    EXPECT_EQ(fixture.dir.read("tasks/7/stdout"), "3 " + fixture.context.device.label() + "\n");
}

TEST(ExecKind, SweepParameterNamedLikeABuiltinIsRejectedOrUsed)
{
    // {start} is also the data range's start: a sweep parameter `start` must not be silently
    // replaced by an empty range value.
    ExecFixture fixture;
    const std::string text = "task: exec\nsweep: {start: [11, 12]}\nexec: {argv: [sh, -c, 'echo {start}']}\n";

    std::string error;
    std::string out;
    try {
        const auto spec = job::parse_job("job.yaml", text, {}, {"exec"});
        const auto space = job::TaskSpace::of(spec, spec.data.items);
        const auto params = space.params_of(1);
        fixture.context.params = &params;
        fixture.context.range.reset();
        const ExecKind kind(spec.exec, 0, 1);
        kind.run(fixture.context);
        out = fixture.dir.read("tasks/7/stdout");
    } catch (const JobFileError& rejected) {
        error = rejected.what();
    }

    if (error.empty()) {
        EXPECT_EQ(out, "12\n") << "{start} did not give the sweep parameter";
    } else {
        EXPECT_NE(error.find("start"), std::string::npos) << error;
    }
}

TEST(ExecKind, TaskDirectoryThatCannotBeMadeIsNamed)
{
    ExecFixture fixture;
    fixture.dir.write("plain-file", "not a directory\n");
    fixture.context.task_dir = fixture.dir.file("plain-file/7");
    const ExecKind kind(exec_spec({"true"}, false), 0, 1);

    const auto outcome = kind.run(fixture.context);

    EXPECT_EQ(outcome.status, io::TaskStatus::failed);
    EXPECT_NE(outcome.message.find(fixture.context.task_dir), std::string::npos)
        << "the message blames the command: " << outcome.message;
}

}  // namespace
}  // namespace shardrun::tasks
