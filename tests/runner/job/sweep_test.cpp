#include "runner/job/sweep.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"noop"};

Sweep sweep_of(const std::string& sweep_yaml, const std::string& file = "job.yaml")
{
    return parse_job(file, "task: noop\nsweep:\n" + sweep_yaml, {}, known_tasks).sweep;
}

std::string sweep_error(const std::string& sweep_yaml, const std::string& file = "job.yaml")
{
    try {
        sweep_of(sweep_yaml, file);
    } catch (const JobFileError& error) {
        return error.what();
    }
    return "";
}

ParamMap point(const Sweep& sweep, std::uint64_t index)
{
    ParamMap params;
    sweep.apply(index, params);
    return params;
}

template <typename T>
T value_at(const Sweep& sweep, std::uint64_t index, const std::string& name)
{
    return std::get<T>(*point(sweep, index).find(name));
}

const auto int_at = value_at<std::int64_t>;
const auto real_at = value_at<double>;

std::string text_at(const Sweep& sweep, std::uint64_t index, const std::string& name) { return point(sweep, index).text(name); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Sweep, EmptySweepHasOnePointWithoutParameters)
{
    const Sweep sweep;

    const auto params = point(sweep, 0);

    EXPECT_EQ(sweep.size(), 1u);
    EXPECT_TRUE(params.entries().empty());
}

TEST(Sweep, ProductOrderHasTheLastAxisFastest)
{
    const auto sweep = sweep_of("  a: [1, 2]\n  b: [p, q, r]\n");

    const auto first = point(sweep, 0);

    EXPECT_EQ(sweep.size(), 6u);
    EXPECT_EQ(sweep.names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(first.integer("a"), 1);
    EXPECT_EQ(first.text("b"), "p");
    EXPECT_EQ(int_at(sweep, 1, "a"), 1);
    EXPECT_EQ(text_at(sweep, 1, "b"), "q");
    EXPECT_EQ(int_at(sweep, 3, "a"), 2);
    EXPECT_EQ(text_at(sweep, 3, "b"), "p");
    EXPECT_EQ(int_at(sweep, 5, "a"), 2);
    EXPECT_EQ(text_at(sweep, 5, "b"), "r");
}

TEST(Sweep, SameJobGivesTheSameIdsEveryTime)
{
    const std::string yaml = "  a: [1, 2, 3]\n  b: {linspace: [0, 1, 5]}\n  c: {range: [0, 7, 2]}\n";

    const auto first = sweep_of(yaml);
    const auto second = sweep_of(yaml);

    ASSERT_EQ(first.size(), second.size());
    for (std::uint64_t i = 0; i < first.size(); ++i) {
        EXPECT_EQ(point(first, i).entries(), point(second, i).entries()) << "point " << i;
    }
}

TEST(Sweep, LinspaceEndpointsAreExact)
{
    const auto sweep = sweep_of("  x: {linspace: [0.1, 0.7, 7]}\n");

    const auto first = real_at(sweep, 0, "x");
    const auto last = real_at(sweep, 6, "x");

    EXPECT_EQ(sweep.size(), 7u);
    EXPECT_EQ(first, 0.1);
    EXPECT_EQ(last, 0.7);
    EXPECT_DOUBLE_EQ(real_at(sweep, 3, "x"), 0.4);
}

TEST(Sweep, LinspaceOfOnePointIsTheStart)
{
    const auto sweep = sweep_of("  x: {linspace: [2.5, 9, 1]}\n");

    const auto value = real_at(sweep, 0, "x");

    EXPECT_EQ(sweep.size(), 1u);
    EXPECT_EQ(value, 2.5);
}

TEST(Sweep, LogspaceIsTenToTheLinspace)
{
    const auto sweep = sweep_of("  x: {logspace: [0, 3, 4]}\n");

    const std::vector<double> values = {real_at(sweep, 0, "x"), real_at(sweep, 1, "x"), real_at(sweep, 2, "x"),
                                        real_at(sweep, 3, "x")};

    EXPECT_DOUBLE_EQ(values[0], 1.0);
    EXPECT_DOUBLE_EQ(values[1], 10.0);
    EXPECT_DOUBLE_EQ(values[2], 100.0);
    EXPECT_DOUBLE_EQ(values[3], 1000.0);
}

TEST(Sweep, IntegerRangeStaysInt64)
{
    const auto sweep = sweep_of("  n: {range: [0, 10, 3]}\n");

    const auto params = point(sweep, 3);

    EXPECT_EQ(sweep.size(), 4u);
    ASSERT_TRUE(std::holds_alternative<std::int64_t>(*params.find("n")));
    EXPECT_EQ(int_at(sweep, 0, "n"), 0);
    EXPECT_EQ(int_at(sweep, 1, "n"), 3);
    EXPECT_EQ(int_at(sweep, 3, "n"), 9);
}

TEST(Sweep, IntegerRangeKeepsLargeValuesExact)
{
    // 2^53 + 1 is not a double: the range must not pass through one.
    const auto sweep = sweep_of("  seed: {range: [9007199254740993, 9007199254740996, 1]}\n");

    const auto first = int_at(sweep, 0, "seed");

    EXPECT_EQ(sweep.size(), 3u);
    EXPECT_EQ(first, 9007199254740993);
}

TEST(Sweep, FloatRange)
{
    const auto sweep = sweep_of("  x: {range: [0, 1, 0.25]}\n");

    const auto params = point(sweep, 3);

    EXPECT_EQ(sweep.size(), 4u);
    ASSERT_TRUE(std::holds_alternative<double>(*params.find("x")));
    EXPECT_DOUBLE_EQ(real_at(sweep, 0, "x"), 0.0);
    EXPECT_DOUBLE_EQ(real_at(sweep, 3, "x"), 0.75);
}

TEST(Sweep, RangeWithNegativeStep)
{
    const auto sweep = sweep_of("  n: {range: [10, 0, -3]}\n");

    const auto last = int_at(sweep, 3, "n");

    EXPECT_EQ(sweep.size(), 4u);
    EXPECT_EQ(int_at(sweep, 0, "n"), 10);
    EXPECT_EQ(int_at(sweep, 1, "n"), 7);
    EXPECT_EQ(last, 1);
}

TEST(Sweep, EmptyRangeAndZeroStepAreErrors)
{
    const auto empty = sweep_error("  n: {range: [5, 0, 1]}\n");
    const auto zero = sweep_error("  n: {range: [0, 5, 0]}\n");

    EXPECT_TRUE(contains(empty, "job.yaml:3:")) << empty;
    EXPECT_TRUE(contains(empty, "sweep.n.range")) << empty;
    EXPECT_TRUE(contains(zero, "sweep.n.range[2]")) << zero;
}

TEST(Sweep, ZipMembersAdvanceTogether)
{
    const auto sweep = sweep_of("  zip: {a: [1, 2, 3], b: [p, q, r]}\n  c: [10, 20]\n");

    const auto params = point(sweep, 2);

    EXPECT_EQ(sweep.size(), 6u);
    EXPECT_EQ(sweep.names(), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(params.integer("a"), 2);
    EXPECT_EQ(params.text("b"), "q");
    EXPECT_EQ(params.integer("c"), 10);
    EXPECT_EQ(int_at(sweep, 5, "a"), 3);
    EXPECT_EQ(text_at(sweep, 5, "b"), "r");
}

TEST(Sweep, ZipListGivesOneAxisPerGroup)
{
    const auto sweep = sweep_of("  zip:\n    - {a: [1, 2], b: [3, 4]}\n    - {c: [5, 6, 7], d: [8, 9, 10]}\n");

    const auto params = point(sweep, 4);

    EXPECT_EQ(sweep.size(), 6u);
    EXPECT_EQ(params.integer("a"), 2);
    EXPECT_EQ(params.integer("b"), 4);
    EXPECT_EQ(params.integer("c"), 6);
    EXPECT_EQ(params.integer("d"), 9);
}

TEST(Sweep, ZipMembersOfDifferentLengthsAreAnError)
{
    const auto message = sweep_error("  zip:\n    a: [1, 2, 3]\n    b: [1, 2]\n");

    EXPECT_TRUE(contains(message, "job.yaml:5:")) << message;
    EXPECT_TRUE(contains(message, "sweep.zip.b")) << message;
}

TEST(Sweep, ExplicitPoints)
{
    const auto sweep = sweep_of("  points: [{a: 1, b: p}, {a: 5, b: q}]\n");

    const auto params = point(sweep, 1);

    EXPECT_EQ(sweep.size(), 2u);
    EXPECT_EQ(params.integer("a"), 5);
    EXPECT_EQ(params.text("b"), "q");
}

TEST(Sweep, PointsNamingDifferentParametersAreAnError)
{
    const auto message = sweep_error("  points: [{a: 1, b: x}, {a: 5}]\n");

    EXPECT_TRUE(contains(message, "job.yaml:3:")) << message;
    EXPECT_TRUE(contains(message, "sweep.points[1]")) << message;
}

TEST(Sweep, PointsFileIsReadBesideTheJobFile)
{
    const shardrun::testing::TempDir dir("shardrun_sweep_test_");
    dir.write("points.json", R"([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}, {"a": 3, "b": "z"}])");

    const auto sweep = sweep_of("  points_file: points.json\n  c: [0, 1]\n", dir.file("job.yaml"));

    EXPECT_EQ(sweep.size(), 6u);
    EXPECT_EQ(int_at(sweep, 4, "a"), 3);
    EXPECT_EQ(text_at(sweep, 4, "b"), "z");
    EXPECT_EQ(int_at(sweep, 4, "c"), 0);
}

TEST(Sweep, MissingPointsFileNamesTheField)
{
    const auto message = sweep_error("  points_file: no-such-points.json\n", "/nonexistent/job.yaml");

    EXPECT_TRUE(contains(message, "job.yaml:3:")) << message;
    EXPECT_TRUE(contains(message, "sweep.points_file")) << message;
    EXPECT_TRUE(contains(message, "no-such-points.json")) << message;
}

TEST(Sweep, DuplicateParameterIsAnError)
{
    const auto message = sweep_error("  a: [1, 2]\n  zip: {a: [3, 4], b: [5, 6]}\n");

    EXPECT_TRUE(contains(message, "job.yaml:")) << message;
    EXPECT_TRUE(contains(message, "sweep")) << message;
    EXPECT_TRUE(contains(message, "'a'")) << message;
}

TEST(Sweep, BillionPointRangeIsLazy)
{
    const auto sweep = sweep_of("  i: {range: [0, 1000000000, 1]}\n  b: [x]\n");

    const auto last = point(sweep, 999999999);

    EXPECT_EQ(sweep.size(), 1000000000u);
    EXPECT_EQ(last.integer("i"), 999999999);
    EXPECT_EQ(last.text("b"), "x");
    EXPECT_EQ(int_at(sweep, 123456789, "i"), 123456789);
}

TEST(Sweep, SweepOfMoreThanTwoToTheSixtyFourPointsIsAnError)
{
    const auto message = sweep_error("  a: {range: [0, 1e18, 1]}\n  b: {range: [0, 1e18, 1]}\n");

    EXPECT_TRUE(contains(message, "job.yaml:")) << message;
    EXPECT_TRUE(contains(message, "sweep")) << message;
}

TEST(Sweep, WhereNamesTheLineAndColumnOfEachValue)
{
    const auto sweep = sweep_of("  a: [1, 2]\n  g: {linspace: [0, 1, 3]}\n  zip:\n    b: [x, y]\n"
                                "    c:\n      - 5\n      - 6\n");

    // point = ((a * 3) + g) * 2 + zip, the last axis fastest
    EXPECT_EQ(sweep.where(0, "a"), "job.yaml:3:7");
    EXPECT_EQ(sweep.where(6, "a"), "job.yaml:3:10");
    EXPECT_EQ(sweep.where(5, "g"), "job.yaml:4:17");  // a generated value: the generator's arguments
    EXPECT_EQ(sweep.where(1, "b"), "job.yaml:6:12");
    EXPECT_EQ(sweep.where(1, "c"), "job.yaml:9:9");
    EXPECT_EQ(sweep.name_where("c"), "job.yaml:7:5");
    EXPECT_EQ(sweep.where(0, "nope"), "");
}

TEST(Sweep, WhereInExplicitPointsAndOverrides)
{
    const auto points = sweep_of("  points:\n    - {x: 1, y: 2}\n    - {y: 4, x: 3}\n");
    const auto overridden =
        parse_job("job.yaml", "task: noop\nsweep: {a: [1]}\n", {"sweep.a=[7, 8]"}, known_tasks).sweep;

    EXPECT_EQ(points.where(1, "x"), "job.yaml:5:17");
    EXPECT_EQ(points.where(1, "y"), "job.yaml:5:11");
    EXPECT_EQ(points.name_where("y"), "job.yaml:4:14");
    EXPECT_EQ(overridden.where(1, "a"), "--set sweep.a");
}

}  // namespace
}  // namespace shardrun::job

namespace shardrun::job {
namespace {

// Issue 35, point 5: one kind of value per axis.
TEST(SweepKinds, IntsAmongFloatsBecomeFloats)
{
    const auto sweep = sweep_of("  lr: [0.1, 1, 1e-3]\n  points: [{w: 2}, {w: 0.5}, {w: 3}]\n");

    EXPECT_DOUBLE_EQ(real_at(sweep, 3, "lr"), 1.0);
    EXPECT_DOUBLE_EQ(real_at(sweep, 0, "w"), 2.0);
    EXPECT_DOUBLE_EQ(real_at(sweep, 2, "w"), 3.0);
    EXPECT_EQ(int_at(sweep_of("  n: [1, 2]\n"), 1, "n"), 2);  // ints alone stay ints
}

TEST(SweepKinds, TextAmongNumbersIsRefusedAtTheOddValue)
{
    const auto list = sweep_error("  lr: [0.1, 1, \"0.01\", 1e-3]\n");
    EXPECT_NE(list.find("job.yaml:3:16: sweep.lr[2]: \"0.01\" is text, but the first value, 0.1, is a number"),
              std::string::npos)
        << list;

    const auto zipped = sweep_error("  zip: {a: [1, 2], b: [x, true]}\n");
    EXPECT_NE(zipped.find("sweep.zip.b[1]: true is a boolean, but the first value, \"x\", is text"), std::string::npos)
        << zipped;

    const auto points = sweep_error("  points: [{n: 1}, {n: two}]\n");
    EXPECT_NE(points.find("job.yaml:3:24: sweep.points[1].n: \"two\" is text, but the first value, 1, is a number"),
              std::string::npos)
        << points;
}

}  // namespace
}  // namespace shardrun::job
