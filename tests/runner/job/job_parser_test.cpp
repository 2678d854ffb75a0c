#include "runner/job/job_parser.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop", "heat2d"};

JobSpec parse(const std::string& text, const std::vector<std::string>& overrides = {})
{
    return parse_job("jobs/full.yaml", text, overrides, known_tasks);
}

const char* const full_job = R"(name: heat-sweep
task: exec
params: {nx: 512, label: hot, dt: 0.5}
sweep:
  alpha: [0.05, 0.1, 0.2]
  source: {linspace: [0.0, 1.0, 11]}
data: {items: 1000, chunk: 64}
schedule: {kind: dynamic, min_claim: 2, max_claim: 50}
device: cpu
gpus_per_task: 1
slots_per_rank: 3
retries: 2
timeout: 10m
timeout_grace: 3s
output: {path: out/heat.h5, layout: single}
exec:
  argv: [./sim, --alpha, "{alpha}", --out, "{task_dir}/field.h5", "{{literal}}"]
  env: {SIM_NX: "{nx}"}
  results: {energy: float64, spectrum: [float32, 128]}
)";

TEST(JobParser, EveryKeyOfAValidJobIsRead)
{
    const std::string text = full_job;

    const auto spec = parse(text);

    EXPECT_EQ(spec.file, "jobs/full.yaml");
    EXPECT_EQ(spec.text, text);
    EXPECT_EQ(spec.name, "heat-sweep");
    EXPECT_EQ(spec.task, "exec");
    EXPECT_EQ(spec.params.integer("nx"), 512);
    EXPECT_EQ(spec.params.text("label"), "hot");
    EXPECT_DOUBLE_EQ(spec.params.number("dt"), 0.5);
    EXPECT_EQ(spec.sweep.size(), 33u);
    EXPECT_EQ(spec.sweep.names(), (std::vector<std::string>{"alpha", "source"}));
    EXPECT_TRUE(spec.data.present);
    EXPECT_EQ(spec.data.items, 1000u);
    EXPECT_EQ(spec.data.chunk, 64u);
    EXPECT_EQ(spec.schedule.kind, ScheduleKind::dynamic);
    EXPECT_EQ(spec.schedule.min_claim, 2u);
    EXPECT_EQ(spec.schedule.max_claim, 50u);
    EXPECT_EQ(spec.device, DevicePreference::cpu);
    EXPECT_EQ(spec.gpus_per_task, 1);
    EXPECT_EQ(spec.slots_per_rank, 3);
    EXPECT_EQ(spec.retries, 2);
    EXPECT_DOUBLE_EQ(spec.timeout_seconds, 600.0);
    EXPECT_DOUBLE_EQ(spec.timeout_grace_seconds, 3.0);
    EXPECT_EQ(spec.output.path, "out/heat.h5");
    EXPECT_EQ(spec.output.layout, "single");
    ASSERT_EQ(spec.exec.argv.size(), 6u);
    EXPECT_EQ(spec.exec.argv[2], "{alpha}");
    EXPECT_EQ(spec.exec.argv[5], "{{literal}}");
    ASSERT_EQ(spec.exec.env.size(), 1u);
    EXPECT_EQ(spec.exec.env[0].first, "SIM_NX");
    EXPECT_EQ(spec.exec.env[0].second, "{nx}");
    ASSERT_EQ(spec.exec.results.size(), 2u);
    EXPECT_EQ(spec.exec.results[0].name, "energy");
    EXPECT_EQ(spec.exec.results[0].dtype, io::DType::float64);
    EXPECT_TRUE(spec.exec.results[0].shape.empty());
    EXPECT_EQ(spec.exec.results[1].name, "spectrum");
    EXPECT_EQ(spec.exec.results[1].dtype, io::DType::float32);
    EXPECT_EQ(spec.exec.results[1].shape, (std::vector<std::size_t>{128}));
    EXPECT_FALSE(spec.resolved_json.empty());
}

TEST(JobParser, DefaultsOfAMinimalJob)
{
    const std::string text = "task: noop\n";

    const auto spec = parse_job("dir/minimal.yaml", text, {}, known_tasks);

    EXPECT_EQ(spec.name, "minimal");
    EXPECT_EQ(spec.sweep.size(), 1u);
    EXPECT_FALSE(spec.data.present);
    EXPECT_EQ(spec.schedule.kind, ScheduleKind::dynamic);
    EXPECT_EQ(spec.device, DevicePreference::automatic);
    EXPECT_EQ(spec.gpus_per_task, 1);
    EXPECT_EQ(spec.retries, 0);
    EXPECT_DOUBLE_EQ(spec.timeout_seconds, 0.0);
    EXPECT_EQ(spec.output.path, "results/minimal.h5");
    EXPECT_EQ(spec.output.layout, "shards");
}

TEST(JobParser, ScheduleNamesMapToKinds)
{
    const std::string base = "task: noop\nschedule: ";

    const auto as_static = parse(base + "static\n");
    const auto as_block = parse(base + "block\n");
    const auto as_cyclic = parse(base + "cyclic\n");

    EXPECT_EQ(as_static.schedule.kind, ScheduleKind::block);
    EXPECT_EQ(as_block.schedule.kind, ScheduleKind::block);
    EXPECT_EQ(as_cyclic.schedule.kind, ScheduleKind::cyclic);
}

TEST(JobParser, TimeoutAcceptsDurations)
{
    const std::string base = "task: noop\ntimeout: ";

    const auto combined = parse(base + "1h30m\n");
    const auto bare = parse(base + "90\n");

    EXPECT_DOUBLE_EQ(combined.timeout_seconds, 5400.0);
    EXPECT_DOUBLE_EQ(bare.timeout_seconds, 90.0);
}

TEST(JobParser, SetOverridesANumber)
{
    const std::string text = "task: noop\nretries: 1\n";

    const auto spec = parse(text, {"retries=4"});

    EXPECT_EQ(spec.retries, 4);
}

TEST(JobParser, SetOverridesAListInTheSweep)
{
    const std::string text = "task: noop\nsweep: {alpha: [1, 2]}\n";

    const auto spec = parse(text, {"sweep.alpha=[1, 2, 3, 4]"});

    EXPECT_EQ(spec.sweep.size(), 4u);
}

TEST(JobParser, SetOnANestedPathCreatesTheMaps)
{
    const std::string text = "task: noop\nschedule: cyclic\n";

    const auto spec = parse(text, {"params.nx=64", "data.items=100", "data.chunk=10", "schedule.kind=dynamic",
                                   "schedule.min_claim=3"});

    EXPECT_EQ(spec.params.integer("nx"), 64);
    EXPECT_TRUE(spec.data.present);
    EXPECT_EQ(spec.data.items, 100u);
    EXPECT_EQ(spec.data.chunk, 10u);
    EXPECT_EQ(spec.schedule.kind, ScheduleKind::dynamic);
    EXPECT_EQ(spec.schedule.min_claim, 3u);
}

TEST(JobParser, SetChangesTheResolvedJson)
{
    const std::string text = "task: noop\nparams: {nx: 1}\n";

    const auto plain = parse(text);
    const auto overridden = parse(text, {"params.nx=2"});

    EXPECT_NE(plain.resolved_json, overridden.resolved_json);
}

TEST(JobParser, ResolvedJsonChangesWithThePointsFileContents)
{
    // resolved_json is hashed for --resume: other points under the same file name are another job.
    const shardrun::testing::TempDir dir("shardrun_parser_test_");
    const auto job = dir.file("job.yaml");
    const std::string text = "task: noop\nsweep: {points_file: points.json}\n";
    dir.write("points.json", R"([{"a": 1}, {"a": 2}])");
    const auto before = parse_job(job, text, {}, known_tasks);
    dir.write("points.json", R"([{"a": 5}, {"a": 6}])");

    const auto after = parse_job(job, text, {}, known_tasks);

    EXPECT_EQ(after.sweep.size(), 2u);
    EXPECT_NE(before.resolved_json, after.resolved_json);
}

TEST(JobParser, BadSetValueIsLocatedAtTheSetKey)
{
    const std::string text = "task: noop\ndata: {items: 100, chunk: 10}\n";

    try {
        parse(text, {"data.chunk=0"});
        FAIL() << "expected JobFileError";
    } catch (const JobFileError& error) {
        const std::string message = error.what();

        EXPECT_NE(message.find("--set data.chunk"), std::string::npos) << message;
        EXPECT_EQ(message.find("jobs/full.yaml:"), std::string::npos) << message;
    }
}

TEST(JobParser, UnknownKeyFromSetIsLocatedAtTheSetKey)
{
    const std::string text = "task: noop\n";

    try {
        parse(text, {"scheduel=cyclic"});
        FAIL() << "expected JobFileError";
    } catch (const JobFileError& error) {
        const std::string message = error.what();

        EXPECT_NE(message.find("--set scheduel"), std::string::npos) << message;
        EXPECT_NE(message.find("did you mean 'schedule'"), std::string::npos) << message;
    }
}

TEST(JobParser, SetWithoutEqualsIsAUsageError)
{
    const std::string text = "task: noop\n";

    EXPECT_THROW(parse(text, {"retries"}), UsageError);
}

TEST(JobParser, JsonIsAcceptedAsYaml)
{
    const std::string text = R"({"task": "noop", "sweep": {"a": [1, 2, 3]}, "data": {"items": 10, "chunk": 5}})";

    const auto spec = parse(text);

    EXPECT_EQ(spec.sweep.size(), 3u);
    EXPECT_EQ(spec.data.chunk, 5u);
}

TEST(JobParser, LoadJobOfAMissingFileNamesTheFile)
{
    const std::string file = "/nonexistent/dir/job.yaml";

    try {
        load_job(file, {}, known_tasks);
        FAIL() << "expected JobFileError";
    } catch (const JobFileError& error) {
        const std::string message = error.what();

        EXPECT_NE(message.find(file), std::string::npos) << message;
        EXPECT_NE(message.find("no such file"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace shardrun::job
