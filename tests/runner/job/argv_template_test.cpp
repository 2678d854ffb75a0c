#include "runner/job/argv_template.hpp"

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace shardrun::job {
namespace {

PlaceholderLookup lookup_of(std::map<std::string, std::string> values)
{
    return [values = std::move(values)](std::string_view name) -> std::optional<std::string> {
        const auto it = values.find(std::string(name));
        if (it == values.end()) return std::nullopt;
        return it->second;
    };
}

TEST(ArgvTemplate, PlaceholdersAreListedInOrder)
{
    const std::string text = "--alpha={alpha},{task_dir}/out-{task_id}.h5";

    const auto names = placeholders_in(text);

    EXPECT_EQ(names, (std::vector<std::string>{"alpha", "task_dir", "task_id"}));
}

TEST(ArgvTemplate, DoubledBracesAreLiteral)
{
    const std::string text = "{{not}} a {{placeholder}}";

    const auto names = placeholders_in(text);
    const auto expanded = expand_placeholders(text, lookup_of({}));

    EXPECT_TRUE(names.empty());
    EXPECT_EQ(expanded, "{not} a {placeholder}");
}

TEST(ArgvTemplate, ValuesAreInsertedVerbatim)
{
    const auto lookup = lookup_of({{"alpha", "0.1"}, {"name", "a b; rm -rf $HOME 'x'"}});

    const auto expanded = expand_placeholders("{alpha}:{name}:{{{alpha}}}", lookup);

    EXPECT_EQ(expanded, "0.1:a b; rm -rf $HOME 'x':{0.1}");
}

TEST(ArgvTemplate, TextWithoutPlaceholdersIsUnchanged)
{
    const std::string text = "plain-arg";

    const auto expanded = expand_placeholders(text, lookup_of({}));

    EXPECT_EQ(expanded, text);
}

TEST(ArgvTemplate, UnknownPlaceholderThrowsNamingIt)
{
    const auto lookup = lookup_of({{"alpha", "1"}});

    try {
        expand_placeholders("{alpha}-{beta}", lookup);
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("{beta}"), std::string::npos) << error.what();
    }
}

TEST(ArgvTemplate, UnclosedBraceThrows)
{
    const std::string text = "{alpha";

    EXPECT_THROW(placeholders_in(text), std::invalid_argument);
    EXPECT_THROW(expand_placeholders(text, lookup_of({{"alpha", "1"}})), std::invalid_argument);
}

TEST(ArgvTemplate, BuiltinPlaceholdersIncludeTheDocumentedNames)
{
    const auto& names = builtin_placeholders();

    for (const auto* name : {"task_id", "task_count", "start", "end", "rank", "device", "task_dir"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }
}

TEST(ArgvTemplate, ParamEnvNameIsUpperCasedWithUnderscores)
{
    const std::string name = "my-param.x2";

    const auto env = param_env_name(name);

    EXPECT_EQ(env, "SHARDRUN_PARAM_MY_PARAM_X2");
}

}  // namespace
}  // namespace shardrun::job
