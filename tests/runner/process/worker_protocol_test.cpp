#include "runner/process/worker_protocol.hpp"
#include "tests/support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include <nlohmann/json.hpp>

namespace shardrun::process {
namespace {

const std::vector<io::FieldSpec> fields{{"v", io::DType::float64, {}, ""}, {"pair", io::DType::int32, {2}, ""}};

TEST(WorkerProtocol, RequestLineCarriesTheTask)
{
    job::ParamMap params;
    params.set("alpha", 0.5);
    params.set("name", std::string("x"));
    TaskContext context;
    context.task_id = 7;
    context.task_count = 20;
    context.params = &params;
    context.range = job::DataRange{40, 48};
    context.attempt = 2;
    context.task_dir = "/out.tasks/7";
    context.input = "in.h5:/text";

    const auto line = worker_request_line(context);

    ASSERT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    const auto request = nlohmann::json::parse(line);
    EXPECT_EQ(request["task_id"], 7);
    EXPECT_EQ(request["task_count"], 20);
    EXPECT_EQ(request["params"]["alpha"], 0.5);
    EXPECT_EQ(request["params"]["name"], "x");
    EXPECT_EQ(request["range"], nlohmann::json::array({40, 48}));
    EXPECT_EQ(request["attempt"], 2);
    EXPECT_EQ(request["task_dir"], "/out.tasks/7");
    EXPECT_EQ(request["input"], "in.h5:/text");
}

TEST(WorkerProtocol, RangeIsNullWithoutData)
{
    job::ParamMap params;
    TaskContext context;
    context.params = &params;

    const auto request = nlohmann::json::parse(worker_request_line(context));

    EXPECT_TRUE(request["range"].is_null());
    EXPECT_FALSE(request.contains("input"));
}

TEST(WorkerProtocol, ReadyLine)
{
    EXPECT_EQ(parse_worker_answer(R"({"ready": true})", fields).kind, WorkerAnswer::Kind::ready);
    EXPECT_EQ(parse_worker_answer(R"({"ready": 1})", fields).kind, WorkerAnswer::Kind::malformed);
}

TEST(WorkerProtocol, OkAnswerConvertsDeclaredFields)
{
    const auto answer = parse_worker_answer(R"({"task_id": 3, "status": "ok", "results": {"v": 1.5, "pair": [4, 5]}})",
                                            fields);

    ASSERT_EQ(answer.kind, WorkerAnswer::Kind::task);
    EXPECT_TRUE(answer.ok);
    EXPECT_EQ(*answer.task_id, 3u);
    ASSERT_EQ(answer.values.size(), 2u);
    double v = 0;
    std::memcpy(&v, answer.values[0].data(), sizeof v);
    EXPECT_EQ(v, 1.5);
    std::int32_t pair[2];
    std::memcpy(pair, answer.values[1].data(), sizeof pair);
    EXPECT_EQ(pair[1], 5);
}

TEST(WorkerProtocol, FailedAnswerKeepsItsMessage)
{
    const auto answer = parse_worker_answer(R"({"task_id": 3, "status": "failed", "message": "no GPU"})", fields);

    EXPECT_EQ(answer.kind, WorkerAnswer::Kind::task);
    EXPECT_FALSE(answer.ok);
    EXPECT_EQ(answer.message, "no GPU");
}

TEST(WorkerProtocol, MalformedAnswersSayWhyAndKeepTheirTask)
{
    const auto not_json = parse_worker_answer("hello", fields);
    const auto no_id = parse_worker_answer(R"({"status": "ok"})", fields);
    const auto bad_status = parse_worker_answer(R"({"task_id": 4, "status": "done"})", fields);
    const auto bad_value = parse_worker_answer(R"({"task_id": 4, "status": "ok", "results": {"v": "x", "pair": [1, 2]}})",
                                               fields);
    const auto no_results = parse_worker_answer(R"({"task_id": 4, "status": "ok"})", fields);

    EXPECT_EQ(not_json.kind, WorkerAnswer::Kind::malformed);
    EXPECT_FALSE(not_json.task_id);
    EXPECT_FALSE(no_id.task_id);
    EXPECT_EQ(*bad_status.task_id, 4u);
    EXPECT_EQ(bad_value.kind, WorkerAnswer::Kind::malformed);
    EXPECT_EQ(*bad_value.task_id, 4u);
    EXPECT_NE(bad_value.message.find("results field 'v'"), std::string::npos) << bad_value.message;
    EXPECT_NE(no_results.message.find("without 'results'"), std::string::npos);
}

TEST(WorkerProtocol, DeepNestingIsRefusedBeforeParsingFurther)
{
    const std::string deep = R"({"task_id": 1, "status": "ok", "results": {"v": [[[[[[[1]]]]]]]}})";

    const auto answer = parse_worker_answer(deep, fields);

    EXPECT_EQ(answer.kind, WorkerAnswer::Kind::malformed);
    EXPECT_NE(answer.message.find("nests deeper"), std::string::npos);
}

}  // namespace
}  // namespace shardrun::process

namespace shardrun::process {
namespace {

// base64 of the little-endian float32 values 1, 2, 3, 4 (Python: base64.b64encode(np.float32([1,2,3,4]).tobytes())).
const char* const four_floats = "AACAPwAAAEAAAEBAAACAQA==";
const char* const three_floats = "AACAPwAAAEAAAEBA";

TEST(WorkerProtocol, BinaryResultsAreDecodedBesideListedOnes)
{
    const std::vector<io::FieldSpec> binary{{"e", io::DType::float32, {2, 2}, ""}, {"n", io::DType::int64, {}, ""}};
    const auto line = fmt::format(R"({{"task_id": 1, "status": "ok", "results": {{"e": {{"dtype": "float32",
        "shape": [2, 2], "base64": "{}"}}, "n": 9}}}})", four_floats);

    const auto answer = parse_worker_answer(line, binary);

    ASSERT_TRUE(answer.ok) << answer.message;
    float e[4];
    std::memcpy(e, answer.values[0].data(), sizeof e);
    EXPECT_EQ(e[0], 1.0f);
    EXPECT_EQ(e[3], 4.0f);
    std::int64_t n = 0;
    std::memcpy(&n, answer.values[1].data(), sizeof n);
    EXPECT_EQ(n, 9);
}

TEST(WorkerProtocol, BinaryResultsMustMatchTheDeclaredField)
{
    const std::vector<io::FieldSpec> one{{"e", io::DType::float32, {4}, ""}};
    const auto answer = [&](const std::string& dtype, const std::string& shape, const std::string& data) {
        return parse_worker_answer(fmt::format(R"({{"task_id": 1, "status": "ok", "results": {{"e": {{"dtype": "{}",
            "shape": {}, "base64": "{}"}}}}}})", dtype, shape, data), one);
    };

    EXPECT_TRUE(answer("float32", "[4]", four_floats).ok) << answer("float32", "[4]", four_floats).message;
    EXPECT_NE(answer("float64", "[4]", four_floats).message.find("dtype"), std::string::npos);
    EXPECT_NE(answer("float32", "[2, 2]", four_floats).message.find("shape"), std::string::npos);
    EXPECT_NE(answer("float32", "[4]", three_floats).message.find("holds 12 bytes"), std::string::npos);
    EXPECT_NE(answer("float32", "[4]", "AACAPwAAAEAAAEBAAACAQ!==").message.find("alphabet"), std::string::npos);
    EXPECT_NE(answer("float32", "[4]", "AAC!PwAAAEAAAEBAAACAQA==").message.find("alphabet"), std::string::npos);
}

TEST(WorkerProtocol, BinaryResultsOfEveryPaddingDecode)
{
    // float32 [1, 2] (one '='), [1, 2, 3] (none) and [1, 2, 3, 4] (two), as Python's base64 writes them.
    const std::vector<std::pair<std::size_t, std::string>> cases{
        {2, "AACAPwAAAEA="}, {3, three_floats}, {4, four_floats}};
    for (const auto& [count, data] : cases) {
        const std::vector<io::FieldSpec> one{{"e", io::DType::float32, {count}, ""}};
        const auto answer = parse_worker_answer(fmt::format(R"({{"task_id": 1, "status": "ok", "results": {{"e": {{
            "dtype": "float32", "shape": [{}], "base64": "{}"}}}}}})", count, data), one);

        ASSERT_TRUE(answer.ok) << answer.message;
        std::vector<float> e(count);
        std::memcpy(e.data(), answer.values[0].data(), count * sizeof(float));
        for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(e[i], static_cast<float>(i + 1)) << data;
    }
}

}  // namespace
}  // namespace shardrun::process

namespace shardrun::process {
namespace {

// A field declared [float32, rows, 2] with data.chunk 3: a task of 2 rows answers [2, 2].
io::FieldSpec rows_field()
{
    io::FieldSpec field{"e", io::DType::float32, {3, 2}, ""};
    field.item_rows = true;
    return field;
}

std::string base64_answer(const std::string& shape, const std::string& data)
{
    return fmt::format(R"({{"task_id": 5, "status": "ok", "results": {{"e": {{"dtype": "float32", "shape": {},
        "base64": "{}"}}}}}})", shape, data);
}

// A .npy file of float32 values 1, 2, 3, 4 in `shape` ("(2, 2)"), as np.save writes it (format 1.0).
void write_npy(const std::filesystem::path& path, const std::string& shape)
{
    auto header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape);
    header.append(64 - (10 + header.size() + 1) % 64, ' ').push_back('\n');
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
    out.write(length, 2);
    out << header;
    const float values[4] = {1, 2, 3, 4};
    out.write(reinterpret_cast<const char*>(values), sizeof values);
}

class WorkerRowsAnswer : public ::testing::Test {
protected:
    AnswerPlace place(std::size_t rows) const { return {rows, dir_.path()}; }

    shardrun::testing::TempDir dir_{"worker-rows-"};
};

TEST_F(WorkerRowsAnswer, ShortChunkAnswersItsRowsAndIsPaddedToTheChunk)
{
    const auto answer = parse_worker_answer(base64_answer("[2, 2]", four_floats), {rows_field()}, place(2));

    ASSERT_TRUE(answer.ok) << answer.message;
    ASSERT_EQ(answer.values[0].size(), 6 * sizeof(float));
    float e[6];
    std::memcpy(e, answer.values[0].data(), sizeof e);
    EXPECT_EQ(e[3], 4.0f);
    EXPECT_TRUE(std::isnan(e[4]) && std::isnan(e[5])) << "the padding is the fill value";
}

TEST_F(WorkerRowsAnswer, OtherRowCountsNameBothShapes)
{
    const auto binary = parse_worker_answer(base64_answer("[2, 2]", four_floats), {rows_field()}, place(1));
    const auto list = parse_worker_answer(R"({"task_id": 5, "status": "ok", "results": {"e": [[1, 2], [3, 4]]}})",
                                          {rows_field()}, place(1));

    EXPECT_EQ(binary.kind, WorkerAnswer::Kind::malformed);
    EXPECT_EQ(*binary.task_id, 5u);
    EXPECT_NE(binary.message.find("binary shape [2,2] is not this task's [1, 2]"), std::string::npos) << binary.message;
    EXPECT_NE(list.message.find("2 rows (shape [2, 2]) is not this task's [1, 2]"), std::string::npos) << list.message;
}

TEST_F(WorkerRowsAnswer, FieldLeftOutOfResultsIsReadFromItsNpyFile)
{
    write_npy(dir_.file("e.npy"), "(2, 2)");

    const auto answer = parse_worker_answer(R"({"task_id": 5, "status": "ok", "results": {}})", {rows_field()}, place(2));
    const auto without_results = parse_worker_answer(R"({"task_id": 5, "status": "ok"})", {rows_field()}, place(2));

    ASSERT_TRUE(answer.ok) << answer.message;
    float e[4];
    std::memcpy(e, answer.values[0].data(), sizeof e);
    EXPECT_EQ(e[0], 1.0f);
    EXPECT_EQ(e[3], 4.0f);
    EXPECT_TRUE(without_results.ok) << without_results.message;
}

TEST_F(WorkerRowsAnswer, NpyFileOfAnotherShapeOrGivenTwiceOrMissingIsMalformed)
{
    write_npy(dir_.file("e.npy"), "(2, 2)");
    const auto wrong_rows = parse_worker_answer(R"({"task_id": 5, "status": "ok", "results": {}})", {rows_field()},
                                                place(1));
    const auto twice = parse_worker_answer(base64_answer("[2, 2]", four_floats), {rows_field()}, place(2));
    std::filesystem::remove(dir_.file("e.npy"));
    const auto missing = parse_worker_answer(R"({"task_id": 5, "status": "ok", "results": {}})", {rows_field()},
                                             place(2));

    EXPECT_NE(wrong_rows.message.find("e.npy has shape (2, 2), the task must write (1, 2)"), std::string::npos)
        << wrong_rows.message;
    EXPECT_NE(twice.message.find("given twice"), std::string::npos) << twice.message;
    EXPECT_NE(missing.message.find("lacks the declared field 'e' (and there is no "), std::string::npos)
        << missing.message;
}

TEST(WorkerProtocol, RequestLineNamesTheResultDir)
{
    job::ParamMap params;
    TaskContext context;
    context.params = &params;

    const auto request = nlohmann::json::parse(worker_request_line(context, "/out.tasks/.scratch-h-1-0.results"));

    EXPECT_EQ(request["result_dir"], "/out.tasks/.scratch-h-1-0.results");
}

}  // namespace
}  // namespace shardrun::process
