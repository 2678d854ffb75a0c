#include "runner/job/duration.hpp"

#include <gtest/gtest.h>

namespace shardrun::job {
namespace {

TEST(Duration, BareNumberIsSeconds)
{
    const auto seconds = parse_duration("90");

    ASSERT_TRUE(seconds.has_value());
    EXPECT_DOUBLE_EQ(*seconds, 90.0);
}

TEST(Duration, UnitsAndCombinations)
{
    const auto combined = parse_duration("1h30m");

    ASSERT_TRUE(combined.has_value());
    EXPECT_DOUBLE_EQ(*combined, 5400.0);
    EXPECT_DOUBLE_EQ(*parse_duration("30s"), 30.0);
    EXPECT_DOUBLE_EQ(*parse_duration("10m"), 600.0);
    EXPECT_DOUBLE_EQ(*parse_duration("2h"), 7200.0);
    EXPECT_DOUBLE_EQ(*parse_duration("500ms"), 0.5);
    EXPECT_DOUBLE_EQ(*parse_duration("1.5s"), 1.5);
}

TEST(Duration, MalformedIsRejected)
{
    const auto unknown_unit = parse_duration("10x");

    EXPECT_FALSE(unknown_unit.has_value());
    EXPECT_FALSE(parse_duration("").has_value());
    EXPECT_FALSE(parse_duration("-5").has_value());
    EXPECT_FALSE(parse_duration("m").has_value());
    EXPECT_FALSE(parse_duration("1h30").has_value());
    EXPECT_FALSE(parse_duration("abc").has_value());
}

TEST(Duration, NotANumberAndInfinityAreRejected)
{
    const auto nan = parse_duration("nan");

    EXPECT_FALSE(nan.has_value()) << "nan parsed as " << *nan;
    EXPECT_FALSE(parse_duration("inf").has_value());
    EXPECT_FALSE(parse_duration("infs").has_value());
}

}  // namespace
}  // namespace shardrun::job
