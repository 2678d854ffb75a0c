// The did-you-mean distance (issue 39): an adjacent transposition is one edit (optimal string
// alignment), so 'float46' suggests 'float64', not 'float32'.
#include <gtest/gtest.h>

#include "runner/job/edit_distance.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions)
{
    EXPECT_EQ(edit_distance("", ""), 0u);
    EXPECT_EQ(edit_distance("", "abc"), 3u);
    EXPECT_EQ(edit_distance("abc", ""), 3u);
    EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
    EXPECT_EQ(edit_distance("float16", "float32"), 2u);
}

TEST(EditDistance, AnAdjacentTranspositionIsOneEdit)
{
    EXPECT_EQ(edit_distance("float46", "float64"), 1u);
    EXPECT_EQ(edit_distance("ab", "ba"), 1u);
    EXPECT_EQ(edit_distance("outptu", "output"), 1u);
    // Optimal string alignment: a transposed pair is not edited again ("ca" -> "abc" is 3, not 2).
    EXPECT_EQ(edit_distance("ca", "abc"), 3u);
}

TEST(EditDistance, TheDtypeSuggestionIsTheTypeMeant)
{
    const std::vector<std::string> dtypes{"float32", "float64", "int32", "int64", "bool"};
    EXPECT_EQ(closest_name("float46", dtypes), "float64");
    EXPECT_EQ(closest_name("int46", dtypes), "int64");
    EXPECT_EQ(closest_name("float16", dtypes), "float32");
}

}  // namespace
}  // namespace shardrun::job
