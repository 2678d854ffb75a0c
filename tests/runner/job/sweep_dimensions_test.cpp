// scalar_value (declared in sweep.hpp, defined in sweep_dimensions.cpp): how a YAML scalar
// becomes a parameter value.
#include "runner/job/sweep.hpp"

#include <gtest/gtest.h>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"

namespace shardrun::job {
namespace {

ParamValue value_of(const std::string& yaml) { return scalar_value(YAML::Load(yaml)); }

TEST(ScalarValue, IntegersFloatsBoolsAndStrings)
{
    const auto integer = value_of("42");

    EXPECT_EQ(std::get<std::int64_t>(integer), 42);
    EXPECT_EQ(std::get<double>(value_of("0.25")), 0.25);
    EXPECT_EQ(std::get<bool>(value_of("true")), true);
    EXPECT_EQ(std::get<bool>(value_of("false")), false);
    EXPECT_EQ(std::get<std::string>(value_of("hot")), "hot");
}

TEST(ScalarValue, SingleLettersStayStrings)
{
    // YAML 1.2 (and JSON) booleans are only true/false: a sweep over [x, y, z] or a
    // parameter `axis: n` must keep the letter, not become true/false.
    const auto y = value_of("y");
    const auto n = value_of("n");

    ASSERT_TRUE(std::holds_alternative<std::string>(y)) << "y became " << param_text(y);
    ASSERT_TRUE(std::holds_alternative<std::string>(n)) << "n became " << param_text(n);
    EXPECT_EQ(std::get<std::string>(y), "y");
    EXPECT_EQ(std::get<std::string>(n), "n");
}

TEST(ScalarValue, QuotedNumberStaysAString)
{
    const auto quoted = value_of("\"007\"");

    ASSERT_TRUE(std::holds_alternative<std::string>(quoted)) << "\"007\" became " << param_text(quoted);
    EXPECT_EQ(std::get<std::string>(quoted), "007");
}

TEST(SweepDimensions, RangeTooLongToCountIsAnError)
{
    // 1e20 values do not fit in 64 bits: the job must be rejected, not given a bogus size.
    const std::string text = "task: noop\nsweep: {a: {range: [0, 1e20, 1]}}\n";

    std::string message;
    std::uint64_t size = 0;
    try {
        size = parse_job("job.yaml", text, {}, {"noop"}).sweep.size();
    } catch (const JobFileError& error) {
        message = error.what();
    }

    EXPECT_NE(message.find("job.yaml:2:"), std::string::npos) << "accepted with sweep size " << size;
    EXPECT_NE(message.find("sweep.a"), std::string::npos) << message;
}

}  // namespace
}  // namespace shardrun::job
