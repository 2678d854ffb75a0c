#include "runner/job/auto_device_rule.hpp"

#include <gtest/gtest.h>

#include <map>

namespace shardrun::job {
namespace {

const std::vector<std::string> names{"n", "m", "size", "label"};

ParamNumber values(std::map<std::string, double> numbers)
{
    return [numbers](std::string_view name) -> std::optional<double> {
        const auto it = numbers.find(std::string(name));
        if (it == numbers.end()) return std::nullopt;
        return it->second;
    };
}

bool holds(std::string_view text, std::map<std::string, double> numbers)
{
    return cpu_rule_holds(parse_cpu_rule(text, names), values(std::move(numbers)));
}

/** The error's column and message for a bad rule. */
std::pair<std::size_t, std::string> error_of(std::string_view text)
{
    try {
        parse_cpu_rule(text, names);
    } catch (const CpuRuleError& error) {
        return {error.column(), error.what()};
    }
    ADD_FAILURE() << "no error for " << text;
    return {};
}

TEST(CpuRule, ComparesOneParameterWithEveryOperator)
{
    EXPECT_TRUE(holds("n < 1000", {{"n", 999}}));
    EXPECT_FALSE(holds("n < 1000", {{"n", 1000}}));
    EXPECT_TRUE(holds("n <= 1000", {{"n", 1000}}));
    EXPECT_TRUE(holds("n > 2.5", {{"n", 3}}));
    EXPECT_TRUE(holds("n >= 1e3", {{"n", 1000}}));
    EXPECT_TRUE(holds("n == 64", {{"n", 64}}));
    EXPECT_TRUE(holds("n != 64", {{"n", 65}}));
    EXPECT_TRUE(holds("n<1000", {{"n", 10}})) << "spaces around the operator are optional";
    EXPECT_TRUE(holds("n > -5", {{"n", 0}}));
}

TEST(CpuRule, AndBindsTighterThanOr)
{
    // n < 10 or (m < 10 and size < 10)
    const auto rule = "n < 10 or m < 10 and size < 10";
    EXPECT_TRUE(holds(rule, {{"n", 5}, {"m", 50}, {"size", 50}}));
    EXPECT_TRUE(holds(rule, {{"n", 50}, {"m", 5}, {"size", 5}}));
    EXPECT_FALSE(holds(rule, {{"n", 50}, {"m", 5}, {"size", 50}}));
}

TEST(CpuRule, AMissingOrTextValueNeverHolds)
{
    EXPECT_FALSE(holds("n < 1000", {}));
    EXPECT_FALSE(holds("n != 1", {})) << "not even a != on a value the task lacks";
    EXPECT_TRUE(holds("n < 1000 or m < 5", {{"m", 1}}));
}

TEST(CpuRule, AnUnknownParameterIsRefusedWithTheClosestName)
{
    const auto [column, message] = error_of("n < 10 and sise < 5");
    EXPECT_EQ(column, 11u);
    EXPECT_NE(message.find("'sise' is not a parameter of this job; did you mean 'size'?"), std::string::npos) << message;
    EXPECT_NE(message.find("known: n, m, size, label"), std::string::npos) << message;
}

TEST(CpuRule, ABadOperatorIsRefusedWithTheAllowedOnes)
{
    const auto [column, message] = error_of("n =< 10");
    EXPECT_EQ(column, 2u);
    EXPECT_NE(message.find("'=<' is not an operator; allowed: <, <=, >, >=, ==, !="), std::string::npos) << message;
    EXPECT_NE(error_of("n = 10").second.find("'=' is not an operator"), std::string::npos);
}

TEST(CpuRule, ANonNumberIsRefused)
{
    const auto [column, message] = error_of("n < big");
    EXPECT_EQ(column, 4u);
    EXPECT_NE(message.find("'big' is not a number"), std::string::npos) << message;
    EXPECT_NE(error_of("n < 10x").second.find("'10x' is not a number"), std::string::npos);
    EXPECT_NE(error_of("n < nan").second.find("is not a number"), std::string::npos);
}

TEST(CpuRule, IncompleteOrBadlyJoinedRulesAreRefused)
{
    EXPECT_NE(error_of("").second.find("is empty"), std::string::npos);
    EXPECT_NE(error_of("n <").second.find("expected a number after 'n <'"), std::string::npos);
    EXPECT_NE(error_of("n").second.find("expected an operator"), std::string::npos);
    EXPECT_NE(error_of("n < 10 and").second.find("expected a parameter name"), std::string::npos);
    const auto [column, message] = error_of("n < 10 m < 3");
    EXPECT_EQ(column, 7u);
    EXPECT_NE(message.find("'m' cannot follow a comparison; join comparisons with 'and' or 'or'"), std::string::npos)
        << message;
}

}  // namespace
}  // namespace shardrun::job
