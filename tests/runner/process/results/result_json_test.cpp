#include "runner/process/results/result_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "tests/support/temp_dir.hpp"

namespace shardrun::process {
namespace {

using testing::TempDir;

const std::vector<io::FieldSpec> fields = {{"energy", io::DType::float64, {}, ""},
                                           {"grid", io::DType::float32, {2, 3}, ""},
                                           {"steps", io::DType::int64, {}, ""}};

template <typename T>
std::vector<T> as(const std::vector<std::byte>& bytes)
{
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
    return values;
}

std::string reason_of(const std::variant<io::TaskValues, std::string>& result)
{
    const auto* reason = std::get_if<std::string>(&result);
    return reason != nullptr ? *reason : "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ResultJson, DeclaredFieldsAreConvertedToTheirDtypeAndShape)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": 1.25, "grid": [[1, 2, 3], [4, 5, 6.5]], "steps": 400, "extra": "ignored"})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto& values = std::get<io::TaskValues>(result);
    ASSERT_EQ(values.size(), 3u);
    EXPECT_EQ(as<double>(values[0]), (std::vector<double>{1.25}));
    EXPECT_EQ(as<float>(values[1]), (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
    EXPECT_EQ(as<std::int64_t>(values[2]), (std::vector<std::int64_t>{400}));
    EXPECT_EQ(values[1].size(), fields[1].bytes());
}

TEST(ResultJson, MissingFieldIsNamed)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": 1.0, "grid": [[1, 2, 3], [4, 5, 6]]})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "'steps'")) << reason;
}

TEST(ResultJson, WrongShapeIsNamed)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": 1.0, "grid": [[1, 2, 3], [4, 5]], "steps": 1})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "'grid'")) << reason;
}

TEST(ResultJson, ArrayWhereAScalarIsDeclared)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": [1.0], "grid": [[1, 2, 3], [4, 5, 6]], "steps": 1})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "'energy'")) << reason;
}

TEST(ResultJson, NonNumberIsRejected)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": "high", "grid": [[1, 2, 3], [4, 5, 6]], "steps": 1})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "'energy'")) << reason;
}

TEST(ResultJson, NotJson)
{
    TempDir dir;
    dir.write("result.json", "energy = 1.0\n");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "not JSON")) << reason;
}

TEST(ResultJson, JsonThatIsNotAnObject)
{
    TempDir dir;
    dir.write("result.json", "[1, 2, 3]");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "object")) << reason;
}

TEST(ResultJson, Int64ValuesBeyondDoublePrecisionStayExact)
{
    TempDir dir;
    dir.write("result.json", R"({"n": 9007199254740993})");
    const std::vector<io::FieldSpec> int_field = {{"n", io::DType::int64, {}, ""}};

    const auto result = read_result_json(dir.file("result.json"), int_field);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    EXPECT_EQ(as<std::int64_t>(std::get<io::TaskValues>(result)[0]), (std::vector<std::int64_t>{9007199254740993}));
}

TEST(ResultJson, Int32OutOfRangeIsRejected)
{
    TempDir dir;
    dir.write("result.json", R"({"k": 3000000000})");
    const std::vector<io::FieldSpec> int_field = {{"k", io::DType::int32, {}, ""}};

    const auto result = read_result_json(dir.file("result.json"), int_field);

    ASSERT_TRUE(std::holds_alternative<std::string>(result))
        << "stored as " << as<std::int32_t>(std::get<io::TaskValues>(result)[0])[0];
    EXPECT_TRUE(contains(reason_of(result), "'k'")) << reason_of(result);
}

TEST(ResultJson, MissingFile)
{
    TempDir dir;

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "did not write")) << reason;
}

TEST(ResultJson, ReasonIsOneLine)
{
    TempDir dir;
    dir.write("result.json", "{\"energy\": 1,\n\n  oops\n}");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_FALSE(reason.empty());
    EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
}

TEST(ResultJson, DeepNestingFailsTheTaskInsteadOfCrashing)
{
    TempDir dir;
    const int depth = 100000;
    dir.write("result.json", "{\"energy\": " + std::string(depth, '[') + std::string(depth, ']') +
                                 ", \"grid\": [[1, 2, 3], [4, 5, 6]], \"steps\": 1}");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "nests deeper than its declared fields allow (at most 3 levels)")) << reason;
}

TEST(ResultJson, AnOversizedResultFileIsRefusedBeforeItIsRead)
{
    TempDir dir;
    dir.write("result.json", "{\"energy\": \"" + std::string(3u << 20, 'x') + "\"}");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "$SHARDRUN_RESULT is 3145742 bytes; the declared fields allow at most 1048832")) << reason;
}

TEST(ResultJson, AWrongValueIsNamedBrieflyNotDumped)
{
    TempDir dir;
    dir.write("result.json", "{\"energy\": \"" + std::string(100000, 'y') + "\", \"grid\": [[1, 2, 3], [4, 5, 6]], \"steps\": 1}");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "field 'energy'")) << reason.substr(0, 200);
    EXPECT_LT(reason.size(), 200u);
}

TEST(ResultJson, BareNanAndInfinityAsPythonWritesThemAreFloatValues)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": NaN, "grid": [[Infinity, -Infinity, 1], [NaN, 2, 3]], "steps": 1})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto& values = std::get<io::TaskValues>(result);
    EXPECT_TRUE(std::isnan(as<double>(values[0])[0]));
    const auto grid = as<float>(values[1]);
    EXPECT_EQ(grid[0], std::numeric_limits<float>::infinity());
    EXPECT_EQ(grid[1], -std::numeric_limits<float>::infinity());
    EXPECT_EQ(grid[2], 1.0f);
    EXPECT_TRUE(std::isnan(grid[3]));
}

TEST(ResultJson, QuotedNonFiniteSpellingsAndNullAreFloatValues)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": null, "grid": [["nan", "inf", "-inf"], ["Infinity", "+Infinity", null]],
                                 "steps": 1})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto& values = std::get<io::TaskValues>(result);
    EXPECT_TRUE(std::isnan(as<double>(values[0])[0]));
    const auto grid = as<float>(values[1]);
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(grid[0]));
    EXPECT_EQ((std::vector<float>{grid[1], grid[2], grid[3], grid[4]}), (std::vector<float>{inf, -inf, inf, inf}));
    EXPECT_TRUE(std::isnan(grid[5]));
}

TEST(ResultJson, NonFiniteOrNullIntegersTakeTheFillValue)
{
    TempDir dir;
    dir.write("result.json", R"({"a": null, "b": NaN, "c": [Infinity, 7, "-inf"]})");
    const std::vector<io::FieldSpec> int_fields = {{"a", io::DType::int64, {}, ""},
                                                   {"b", io::DType::int32, {}, ""},
                                                   {"c", io::DType::int32, {3}, ""}};

    const auto result = read_result_json(dir.file("result.json"), int_fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto& values = std::get<io::TaskValues>(result);
    const auto fill32 = std::numeric_limits<std::int32_t>::min();
    EXPECT_EQ(as<std::int64_t>(values[0]), (std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min()}));
    EXPECT_EQ(as<std::int32_t>(values[1]), (std::vector<std::int32_t>{fill32}));
    EXPECT_EQ(as<std::int32_t>(values[2]), (std::vector<std::int32_t>{fill32, 7, fill32}));
}

TEST(ResultJson, NullForAWholeArrayFillsEveryElement)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": 1, "grid": null, "steps": 1})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto grid = as<float>(std::get<io::TaskValues>(result)[1]);
    ASSERT_EQ(grid.size(), 6u);
    for (const float value : grid) EXPECT_TRUE(std::isnan(value));
}

TEST(ResultJson, NonFiniteWordsInsideStringsAreLeftAlone)
{
    TempDir dir;
    dir.write("result.json", R"({"note": "NaN \" Infinity", "energy": 2.5, "grid": [[1, 2, 3], [4, 5, 6]], "steps": 1})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    EXPECT_EQ(as<double>(std::get<io::TaskValues>(result)[0]), (std::vector<double>{2.5}));
}

TEST(ResultJson, BackslashRunsBeforeAQuoteDecideWhetherItEndsTheString)
{
    TempDir dir;
    // "a\\" ends after its escaped backslash; "b\\\" NaN" goes on past its escaped quote.
    dir.write("result.json", R"({"x": "a\\", "energy": NaN, "y": "b\\\" NaN", "grid": [[1, 2, 3], [4, 5, 6]], "steps": 1})");

    const auto result = read_result_json(dir.file("result.json"), fields);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    EXPECT_TRUE(std::isnan(as<double>(std::get<io::TaskValues>(result)[0])[0]));
}

TEST(ResultJson, OtherWordsAreStillNotNumbers)
{
    TempDir dir;
    dir.write("result.json", R"({"energy": "nanny", "grid": [[1, 2, 3], [4, 5, 6]], "steps": 1})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "field 'energy'")) << reason;
    EXPECT_TRUE(contains(reason, "not a number")) << reason;
}

TEST(ResultJson, ABareNanThatIsNotAValueIsStillNotJson)
{
    TempDir dir;
    dir.write("result.json", R"({NaN: 1})");

    const auto reason = reason_of(read_result_json(dir.file("result.json"), fields));

    EXPECT_TRUE(contains(reason, "not JSON")) << reason;
}

TEST(ResultJson, BoolFieldsTakeTrueAndFalseAsOneByteEach)
{
    TempDir dir;
    const std::vector<io::FieldSpec> flags = {{"converged", io::DType::boolean, {}, ""},
                                              {"mask", io::DType::boolean, {2, 2}, ""}};
    dir.write("result.json", R"({"converged": true, "mask": [[true, false], [false, true]]})");

    const auto result = read_result_json(dir.file("result.json"), flags);

    ASSERT_TRUE(std::holds_alternative<io::TaskValues>(result)) << reason_of(result);
    const auto& values = std::get<io::TaskValues>(result);
    EXPECT_EQ(as<std::uint8_t>(values[0]), (std::vector<std::uint8_t>{1}));
    EXPECT_EQ(as<std::uint8_t>(values[1]), (std::vector<std::uint8_t>{1, 0, 0, 1}));
    EXPECT_EQ(values[1].size(), flags[1].bytes());
}

TEST(ResultJson, BoolFieldRefusesNumbersNullAndTextNamingTheField)
{
    TempDir dir;
    const std::vector<io::FieldSpec> flags = {{"converged", io::DType::boolean, {}, ""},
                                              {"mask", io::DType::boolean, {2}, ""}};
    // (result.json, the field its one-line reason must name)
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"converged": 2, "mask": [true, true]})", "field 'converged': 2 is"},
        {R"({"converged": 1, "mask": [true, true]})", "field 'converged': 1 is"},
        {R"({"converged": null, "mask": [true, true]})", "field 'converged': null is"},
        {R"({"converged": "true", "mask": [true, true]})", "field 'converged': \"true\" is"},
        {R"({"converged": true, "mask": [true, 0]})", "field 'mask': 0 is"},
        {R"({"converged": true, "mask": null})", "field 'mask': null is"}};
    for (const auto& [text, named] : cases) {
        dir.write("result.json", text);

        const auto reason = reason_of(read_result_json(dir.file("result.json"), flags));

        EXPECT_TRUE(contains(reason, named + " not true or false (a bool field)")) << text << " -> " << reason;
        EXPECT_FALSE(contains(reason, "\n")) << reason;
    }
}

}  // namespace
}  // namespace shardrun::process
