// Result dimensions sized by a parameter: parsed extents, the length columns, and refusals.
#include "runner/job/param_shapes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"

namespace shardrun::job {
namespace {

JobSpec parse(const std::string& text)
{
    return parse_job("job.yaml", text, {}, {"exec"});
}

std::string error_of(const std::string& text)
{
    try {
        parse(text);
    } catch (const JobFileError& error) {
        return error.what();
    }
    return "(no error)";
}

TEST(ParamShapes, ASweptParameterSizesTheAxisAtItsLargestValue)
{
    const auto spec = parse(R"(task: exec
sweep: {epochs: [3, 7, 5], seed: [1, 2]}
exec:
  argv: [/bin/true]
  results: {loss: [float64, "{epochs}"], traj: [float32, 4, {epochs}], best: float64}
)");
    const auto& results = spec.exec.results;
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].shape, (std::vector<std::size_t>{7}));
    EXPECT_EQ(results[0].length_param, "epochs");
    EXPECT_EQ(results[0].length_axis, 0u);
    // Unquoted {epochs} is YAML's one-key mapping: read as the same parameter dimension.
    EXPECT_EQ(results[1].shape, (std::vector<std::size_t>{4, 7}));
    EXPECT_EQ(results[1].length_axis, 1u);
    EXPECT_TRUE(results[2].length_param.empty());

    const auto stored = stored_fields(results);
    ASSERT_EQ(stored.size(), 5u);
    EXPECT_EQ(stored[3].name, "loss_length");
    EXPECT_EQ(stored[4].name, "traj_length");
    EXPECT_EQ(stored[3].dtype, io::DType::int64);
    EXPECT_TRUE(stored[3].shape.empty());
}

TEST(ParamShapes, AFixedParameterAndARangeWork)
{
    auto spec = parse(R"(task: exec
params: {n: 4}
exec: {argv: [/bin/true], results: {v: [int32, "{n}", 2]}}
)");
    EXPECT_EQ(spec.exec.results[0].shape, (std::vector<std::size_t>{4, 2}));
    spec = parse(R"(task: exec
sweep: {n: {range: [2, 40, 3]}}
exec: {argv: [/bin/true], results: {v: [float32, "{n}"]}}
)");
    EXPECT_EQ(spec.exec.results[0].shape, (std::vector<std::size_t>{38}));
}

TEST(ParamShapes, AnUnknownNameListsOnlyTheParametersThatCouldSizeIt)
{
    // docs/job-file.md's curves.yaml: lr (floats), tag (text) and n (0) can size no dimension, so the
    // allowed list names epochs alone (it once listed every parameter, lr included).
    const auto error = error_of("task: exec\nparams: {tag: a, n: 0}\nsweep: {epochs: [3, 5], lr: [0.1, 0.2]}\n"
                                "exec: {argv: [x], results: {loss: [float64, \"{epoch}\"]}}\n");
    EXPECT_TRUE(error.ends_with("{epoch} names no parameter (did you mean 'epochs'?); allowed: an integer parameter "
                                "of params: or sweep: (epochs)"))
        << error;
    EXPECT_NE(error_of("task: exec\nsweep: {lr: [0.1, 0.2]}\nexec: {argv: [x], results: {loss: [float64, \"{epochs}\"]}}\n")
                  .find("{epochs} names no parameter; allowed: an integer parameter of params: or sweep: (this job has "
                        "none)"),
              std::string::npos);
}

TEST(ParamShapes, EachBadDimensionNamesItsPlaceAndWhatIsAllowed)
{
    EXPECT_NE(error_of("task: exec\nsweep: {epochs: [3, 5]}\nexec: {argv: [x], results: {loss: [float64, \"{epoch}\"]}}\n")
                  .find("job.yaml:3:45: exec.results.loss[1]: {epoch} names no parameter (did you mean 'epochs'?)"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {lr: [0.1, 0.2]}\nexec: {argv: [x], results: {loss: [float64, \"{lr}\"]}}\n")
                  .find("{lr} is swept, and its value 0.1 is not an integer (at job.yaml:2:14); allowed: a parameter "
                        "whose every value is a whole number of at least 1"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nparams: {n: 0}\nexec: {argv: [x], results: {loss: [float64, \"{n}\"]}}\n")
                  .find("{n} is params.n, and 0 is below 1"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {n: [1, 2]}\nexec: {argv: [x], results: {g: [float64, \"{n}\", \"{n}\"]}}\n")
                  .find("exec.results.g[2]: only one dimension of a field may name a parameter"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {n: [1, 2]}\nexec: {argv: [x], results: {g: [float64, \"{n\"]}}\n")
                  .find("exec.results.g[1]: '{n' is not a dimension"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {n: [1, 2]}\nexec: {argv: [x], results: {g: [float64, \"{n}\"], g_length: "
                       "int64}}\n")
                  .find("exec.results.g_length: 'g_length' is the length column of 'g'"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {n: [1, 300000000]}\nexec: {argv: [x], results: {g: [float64, \"{n}\"]}}\n")
                  .find("{n} reaches 300000000, which makes one task's values larger than 1 GiB"),
              std::string::npos);
}

}  // namespace
}  // namespace shardrun::job
