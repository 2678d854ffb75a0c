// What counts as an answer printed on a worker's stdout (issue 24, point 7), and the typed env.
#include "runner/process/stdout_answer.hpp"
#include "runner/process/typed_env.hpp"
#include "runner/process/worker_protocol.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace shardrun::process {
namespace {

TEST(StdoutAnswer, ReadyAndTaskAnswersAreSpottedWithTheFdNamed)
{
    const auto ready = stdout_answer(R"({"ready": true})");
    ASSERT_TRUE(ready);
    EXPECT_TRUE(ready->ready);
    EXPECT_NE(ready->hint.find("$SHARDRUN_ANSWER_FD (fd 3)"), std::string::npos);
    const auto task = stdout_answer(R"(  {"task_id": 7, "status": "ok", "results": {}})");
    ASSERT_TRUE(task);
    EXPECT_FALSE(task->ready);
    EXPECT_EQ(task->task_id, 7u);
}

TEST(StdoutAnswer, OtherOutputIsNotAnAnswer)
{
    EXPECT_FALSE(stdout_answer("loading model..."));
    EXPECT_FALSE(stdout_answer(R"({"epoch": 3, "loss": 0.5})"));  // a JSON log line, no answer keys
    EXPECT_FALSE(stdout_answer(R"({"task_id": 7)"));              // not JSON
    EXPECT_FALSE(stdout_answer("shardrun: worker 1 started (pid 5)"));
}

TEST(StdoutAnswer, WatchReadsOnlyNewCompleteLines)
{
    const auto path = testing::TempDir() + "/stdout_answer_watch.log";
    std::ofstream(path) << "{\"ready\": true}\n";  // before the worker's spawn: not its output
    StdoutAnswerWatch watch(path, log_size(path));
    EXPECT_FALSE(watch.next());
    std::ofstream(path, std::ios::app) << "hello\n{\"task_id\": 3, \"sta";
    EXPECT_FALSE(watch.next());  // the answer line is not complete yet
    std::ofstream(path, std::ios::app) << "tus\": \"ok\"}\n";
    const auto seen = watch.next();
    ASSERT_TRUE(seen);
    EXPECT_EQ(seen->task_id, 3u);
    EXPECT_FALSE(watch.next());
}

TEST(TypedEnv, ParamsKeepTheirTypes)
{
    job::ParamMap params;
    params.set("epochs", std::int64_t{3});
    params.set("lr", 0.5);
    params.set("warm", true);
    params.set("tag", std::string("a"));
    const auto json = nlohmann::json::parse(params_json(params));
    EXPECT_TRUE(json["epochs"].is_number_integer());
    EXPECT_TRUE(json["lr"].is_number_float());
    EXPECT_TRUE(json["warm"].is_boolean());
    EXPECT_EQ(json["tag"], "a");
    const auto fields = nlohmann::json::parse(result_fields_json({{"loss", io::DType::float32, {4}, ""}}));
    EXPECT_EQ(fields["loss"], "float32");
}

TEST(WorkerProtocol, BareNanAndInfinityAreValuesAsInResultFiles)
{
    const std::vector<io::FieldSpec> fields{{"v", io::DType::float64, {2}, ""}};
    const auto answer = parse_worker_answer(R"({"task_id": 1, "status": "ok", "results": {"v": [NaN, -Infinity]}})", fields);
    ASSERT_EQ(answer.kind, WorkerAnswer::Kind::task) << answer.message;
    double v[2];
    std::memcpy(v, answer.values[0].data(), sizeof v);
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], -INFINITY);
}

}  // namespace
}  // namespace shardrun::process
