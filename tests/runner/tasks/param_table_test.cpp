// The parameter tables of the task kinds and the checks they drive (runner/tasks/param_table).
#include "runner/tasks/param_table.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "runner/tasks/registry.hpp"

namespace {

using namespace shardrun::tasks;

TEST(ParamTable, IntegerRangeNamesTheValueAndTheBound)
{
    const auto n = integer_param("n", 512, above(0), "size");

    EXPECT_EQ(param_problem(n, std::int64_t{0}), "n = 0 must be > 0");
    EXPECT_EQ(param_problem(n, std::int64_t{64}), "");
    EXPECT_EQ(param_problem(n, 64.0), "");  // YAML's 6.4e1 is a whole number
    EXPECT_EQ(param_problem(n, 64.5), "64.5 is not an integer; allowed: an integer > 0");
    EXPECT_EQ(param_problem(n, std::string("big")), "'big' is not a number; allowed: an integer > 0");
    EXPECT_EQ(param_problem(n, true), "'true' is not a number; allowed: an integer > 0");
}

TEST(ParamTable, NumberRangesOpenAndClosed)
{
    const auto lr = number_param("lr", 0.05, above_up_to(0, 10), "");
    const auto momentum = number_param("momentum", 0.9, from_below(0, 1), "");
    const auto rate = number_param("rate", 0.05, {}, "");

    EXPECT_EQ(param_problem(lr, std::int64_t{50}), "lr = 50 must be in (0, 10]");
    EXPECT_EQ(param_problem(lr, 10.0), "");
    EXPECT_EQ(param_problem(lr, 0.0), "lr = 0 must be in (0, 10]");
    EXPECT_EQ(param_problem(momentum, 0.0), "");
    EXPECT_EQ(param_problem(momentum, 1.0), "momentum = 1 must be in [0, 1)");
    EXPECT_EQ(param_problem(rate, -3.5), "");
    EXPECT_EQ(param_problem(rate, std::numeric_limits<double>::quiet_NaN()), "rate = nan is not a finite number");
}

TEST(ParamTable, ChoicesSuggestTheClosestWord)
{
    const auto dtype = choice_param("dtype", "float32", {"float32", "float64"}, "");

    EXPECT_EQ(param_problem(dtype, std::string("float64")), "");
    EXPECT_EQ(param_problem(dtype, std::string("flaot64")),
              "'flaot64' is not allowed (did you mean 'float64'?); allowed: float32, float64");
    EXPECT_EQ(param_problem(dtype, std::int64_t{16}), "'16' is not allowed; allowed: float32, float64");
    EXPECT_EQ(param_problem(dtype, std::string("float16")), "'float16' is not allowed; allowed: float32, float64");
}

TEST(ParamTable, UnknownNamesGetTheClosestKnownOne)
{
    const ParamTable table{{integer_param("steps", 100, at_least(0), ""), integer_param("nx", 128, at_least(3), "")}};
    const ParamTable open{{}, true};

    EXPECT_EQ(unknown_param_problem(table, "stpes"), "unknown parameter (did you mean 'steps'?); allowed: steps, nx");
    EXPECT_EQ(unknown_param_problem(table, "colour"), "unknown parameter; allowed: steps, nx");
    EXPECT_EQ(unknown_param_problem(table, "nx"), "");
    EXPECT_EQ(unknown_param_problem(open, "anything"), "");
}

TEST(ParamTable, EveryKindHasOneTableWithUniqueDocumentedNames)
{
    const auto kinds = task_kinds();

    ASSERT_EQ(kinds.size(), task_kind_names().size());
    for (const auto& kind : kinds) {
        ASSERT_NE(kind.params, nullptr) << kind.name;
        EXPECT_FALSE(kind.summary.empty()) << kind.name;
        std::set<std::string> names;
        for (const auto& param : kind.params->params) {
            EXPECT_TRUE(names.insert(param.name).second) << kind.name << "." << param.name;
            EXPECT_FALSE(param.doc.empty()) << kind.name << "." << param.name;
            EXPECT_FALSE(param.default_text.empty()) << kind.name << "." << param.name;
            // A typed default is a value the kind's own check accepts.
            if (param.value) EXPECT_EQ(param_problem(param, *param.value), "") << kind.name << "." << param.name;
            if (param.type == ParamType::choice) EXPECT_TRUE(param.value.has_value()) << kind.name << "." << param.name;
        }
        EXPECT_EQ(kind.params->open, kind.name == "exec" || kind.name == "noop") << kind.name;
    }
}

}  // namespace
