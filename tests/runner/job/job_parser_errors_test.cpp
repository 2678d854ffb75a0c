// Bad job files: every error is one line with the location (file:line:col or --set key),
// the field path and what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop", "heat2d"};

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {})
{
    return job_file_error(text, known_tasks, overrides);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(JobParserErrors, YamlSyntaxErrorHasLineAndColumn)
{
    const std::string text = "task: noop\nsweep: {alpha: [1, 2}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:")) << message;
    EXPECT_TRUE(contains(message, "YAML syntax error")) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(JobParserErrors, JobFileThatIsNotAMapping)
{
    const std::string text = "- task\n- noop\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:1:1")) << message;
}

TEST(JobParserErrors, UnknownTopLevelKeySuggestsTheClosest)
{
    const std::string text = "task: noop\nscheduel: dynamic\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:1: scheduel: unknown key")) << message;
    EXPECT_TRUE(contains(message, "did you mean 'schedule'")) << message;
}

TEST(JobParserErrors, UnknownNestedKeySuggestsTheClosest)
{
    const std::string text = "task: noop\ndata:\n  items: 10\n  chunks: 2\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:4:3: data.chunks:")) << message;
    EXPECT_TRUE(contains(message, "did you mean 'chunk'")) << message;
}

TEST(JobParserErrors, RetriesMustBeAnInteger)
{
    const std::string text = "task: noop\nretries: abc\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:10: retries:")) << message;
    EXPECT_TRUE(contains(message, "not an integer")) << message;
}

TEST(JobParserErrors, GpusPerTaskMustBeWhole)
{
    const std::string text = "task: noop\ngpus_per_task: 1.5\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:16: gpus_per_task:")) << message;
}

TEST(JobParserErrors, GpusPerTaskTooLargeForAnIntIsRejected)
{
    const std::string text = "task: noop\ngpus_per_task: 4294967297\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:16: gpus_per_task:")) << message;
}

TEST(JobParserErrors, SlotsPerRankWithRankGroupsIsRefused)
{
    const std::string text = "task: noop\ngpus_per_task: 2\nslots_per_rank: 2\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:17: slots_per_rank: must be 1 when gpus_per_task is above 1")) << message;
}

TEST(JobParserErrors, DuplicateKeysAreRefusedWithTheirLine)
{
    const std::string text = "task: exec\nexec:\n  argv: [true]\n  results:\n    v: int64\n    v: float64\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:6:5: exec.results.v: duplicate key (first given at line 5)")) << message;
}

TEST(JobParserErrors, DuplicateTopLevelKeyIsRefused)
{
    const std::string text = "task: noop\nretries: 1\nretries: 2\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:1: retries: duplicate key (first given at line 2)")) << message;
}

TEST(JobParserErrors, NulInsideAValueIsRefused)
{
    const std::string text = "task: noop\nparams: {label: \"ab\\0cd\"}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "params.label: contains a NUL character")) << message;
}

TEST(JobParserErrors, ParameterNamesWithTheSameEnvironmentNameAreRefused)
{
    const std::string text = "task: noop\nsweep: {a-b: [1, 2], a_b: [3]}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "sweep.a_b: 'a-b' and 'a_b' are both SHARDRUN_PARAM_A_B")) << message;
}

TEST(JobParserErrors, TaskCountBeyond64BitsIsRefused)
{
    const std::string text = "task: noop\nsweep: {a: [1, 2, 3]}\ndata: {items: 6148914691236517206, chunk: 1}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:15: data.items: 3 sweep points x 6148914691236517206 data chunks is "
                                  "more than 2^64 tasks"))
        << message;
}

TEST(JobParserErrors, ResultShapeBeyondOneGibibytePerTaskIsRefused)
{
    const std::string text = "task: exec\nexec:\n  argv: [true]\n  results: {v: [float32, 4294967296, 4294967296]}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "exec.results.v[1]: the field's shape makes one task's values larger than 1 GiB"))
        << message;
}

TEST(JobParserErrors, EmptySweepList)
{
    const std::string text = "task: noop\nsweep:\n  alpha: []\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:10: sweep.alpha:")) << message;
    EXPECT_TRUE(contains(message, "empty")) << message;
}

TEST(JobParserErrors, ChunkZero)
{
    const std::string text = "task: noop\ndata: {items: 10, chunk: 0}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:26: data.chunk:")) << message;
    EXPECT_TRUE(contains(message, "at least 1")) << message;
}

TEST(JobParserErrors, NegativeItems)
{
    const std::string text = "task: noop\ndata: {items: -5, chunk: 2}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:15: data.items:")) << message;
}

TEST(JobParserErrors, ArgvNamingAnUnknownParameter)
{
    const std::string text = "task: exec\nsweep: {alpha: [1]}\nexec:\n  argv: [sim, \"{alpha}\", \"{beta}\"]\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:4:")) << message;
    EXPECT_TRUE(contains(message, "exec.argv[2]:")) << message;
    EXPECT_TRUE(contains(message, "{beta}")) << message;
}

TEST(JobParserErrors, UnknownPlaceholderInExecEnv)
{
    const std::string text = "task: exec\nexec:\n  argv: [sim]\n  env: {X: \"{nope}\"}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:4:")) << message;
    EXPECT_TRUE(contains(message, "exec.env.X:")) << message;
}

TEST(JobParserErrors, UnclosedBraceInArgv)
{
    const std::string text = "task: exec\nexec:\n  argv: [sim, \"{task_id\"]\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:")) << message;
    EXPECT_TRUE(contains(message, "exec.argv[1]:")) << message;
}

TEST(JobParserErrors, MissingTask)
{
    const std::string text = "name: x\nretries: 1\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:1:1: task:")) << message;
    EXPECT_TRUE(contains(message, "missing")) << message;
}

TEST(JobParserErrors, UnknownTaskSuggestsTheClosest)
{
    const std::string text = "task: heat2e\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:1:7: task:")) << message;
    EXPECT_TRUE(contains(message, "did you mean 'heat2d'")) << message;
}

TEST(JobParserErrors, ExecBlockOnANonExecTask)
{
    const std::string text = "task: noop\nexec:\n  argv: [sim]\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:3:3: exec:")) << message;
}

TEST(JobParserErrors, ExecTaskWithoutExecBlock)
{
    const std::string text = "task: exec\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml")) << message;
    EXPECT_TRUE(contains(message, "exec:")) << message;
}

TEST(JobParserErrors, InvalidOutputLayout)
{
    const std::string text = "task: noop\noutput: {layout: shard}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:18: output.layout:")) << message;
    EXPECT_TRUE(contains(message, "did you mean 'shards'")) << message;
}

TEST(JobParserErrors, MalformedTimeout)
{
    const std::string text = "task: noop\ntimeout: 10x\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:2:10: timeout:")) << message;
}

TEST(JobParserErrors, InvalidResultDtype)
{
    const std::string text = "task: exec\nexec:\n  argv: [sim]\n  results: {e: float16}\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:4:")) << message;
    EXPECT_TRUE(contains(message, "exec.results.e:")) << message;
}

TEST(JobParserErrors, InvalidName)
{
    const std::string text = "name: has space\ntask: noop\n";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:1:7: name:")) << message;
}

TEST(JobParserErrors, EmptyJobFileIsLocatedAtItsStart)
{
    const std::string text = "";

    const auto message = error_of(text);

    EXPECT_TRUE(contains(message, "bad.yaml:1:1: task:")) << message;
}

TEST(JobParserErrors, SetThatLeavesASectionIncompleteIsLocatedAtTheSetKey)
{
    // data: did not exist; --set data.chunk=5 creates it without items.
    const std::string text = "task: noop\n";

    const auto message = error_of(text, {"data.chunk=5"});

    EXPECT_TRUE(contains(message, "--set data.chunk")) << message;
    EXPECT_TRUE(contains(message, "data")) << message;
}

TEST(JobParserErrors, NamesThatCannotBeHdf5DatasetsAreRejected)
{
    // /results/<field> and /params/<name> are datasets: a '/' or an empty name fails only
    // when the output is written, after the tasks ran.
    const std::string field = "task: exec\nexec: {argv: [x], results: {\"a/b\": float64}}\n";
    const std::string param = "task: noop\nsweep: {\"a/b\": [1, 2]}\n";
    const std::string empty = "task: noop\nsweep: {\"\": [1, 2]}\n";

    const auto field_message = error_of(field);
    const auto param_message = error_of(param);
    const auto empty_message = error_of(empty);

    EXPECT_TRUE(contains(field_message, "bad.yaml:2:")) << field_message;
    EXPECT_TRUE(contains(field_message, "exec.results")) << field_message;
    EXPECT_TRUE(contains(param_message, "bad.yaml:2:")) << param_message;
    EXPECT_TRUE(contains(param_message, "sweep")) << param_message;
    EXPECT_TRUE(contains(empty_message, "sweep")) << empty_message;
}

TEST(JobParserErrors, EveryErrorIsOneLine)
{
    const std::vector<std::string> texts = {"task: noop\nretries: abc\n", "task: noop\nscheduel: x\n",
                                            "task: noop\nsweep: {a: [1, 2}\n", "task: exec\n"};

    std::vector<std::string> messages;
    for (const auto& text : texts) messages.push_back(error_of(text));

    for (const auto& message : messages) {
        EXPECT_FALSE(message.empty());
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
}

TEST(JobParserErrors, UnterminatedQuoteIsASyntaxErrorAtTheQuote)
{
    const std::string text = "task: noop\nsweep:\n  label:\n    - a\n    - \"b\nretries: 2\n";

    const auto message = error_of(text);

    EXPECT_EQ(message.rfind("bad.yaml:5:7: YAML syntax error: this quoted string is never closed", 0), 0u) << message;
}

TEST(JobParserErrors, ClosedQuotesWithEscapesAndLineBreaksAreFine)
{
    const std::string text = "task: noop\nparams: {label: 'it''s'}\nsweep:\n  tag: [\"a\\\"b\", \"multi\n    line\"]\n";

    EXPECT_EQ(error_of(text), "");
}

TEST(JobParserErrors, UnterminatedQuoteInASetValue)
{
    try {
        parse_job("bad.yaml", "task: noop\n", {"name=\"abc\n"}, known_tasks);  // yaml-cpp needs the line break
        FAIL() << "accepted";
    } catch (const UsageError& error) {
        EXPECT_TRUE(contains(error.what(), "--set name: the value opens a quote that is never closed")) << error.what();
    }
}

TEST(JobParserErrors, ParameterBothFixedAndSweptNamesTheSweepAxis)
{
    const std::string text = "task: noop\nparams: {alpha: 0.5}\nsweep:\n  beta: [1]\n  alpha: [0.1, 0.2]\n";

    const auto message = error_of(text);

    EXPECT_EQ(message.rfind("bad.yaml:5:3: sweep.alpha: 'alpha' is also fixed in params (bad.yaml:2:17)", 0), 0u)
        << message;
}

TEST(JobParserErrors, SetIntoAScalarSaysWhatTheFieldIs)
{
    const auto message = error_of("task: noop\nretries: 2\n", {"retries.max=3"});

    EXPECT_EQ(message, "--set retries.max: retries: must be an integer (at least 0), not a mapping");
}

TEST(JobParserErrors, FieldSitesPointAtParamsAndDataInput)
{
    const auto spec = parse_job("job.yaml", "task: noop\nparams:\n  n: 4\ndata: {input: f.h5:/x, chunk: 2}\n",
                                {"params.m=5"}, known_tasks);

    EXPECT_EQ(spec.sites.value("params.n", ""), "job.yaml:3:6");
    EXPECT_EQ(spec.sites.keys.at("params.n"), "job.yaml:3:3");
    EXPECT_EQ(spec.sites.value("params.m", ""), "--set params.m");
    EXPECT_EQ(spec.sites.value("data.input", ""), "job.yaml:4:15");
    EXPECT_EQ(spec.sites.value("params.chunk", ""), "job.yaml:4:31");  // set from data.chunk
}

}  // namespace
}  // namespace shardrun::job

namespace shardrun::job {
namespace {

TEST(JobParserErrors, ExecThatIsNotAMappingIsNotCalledMissing)
{
    // Found by a new user: `exec: 3` was reported as "missing".
    const auto message = job_file_error("task: exec\nexec: 3\n", {"exec", "noop"});

    EXPECT_NE(message.find("bad.yaml:2:7: exec: must be a mapping: exec: {argv: [program, args...]}"), std::string::npos)
        << message;
}

}  // namespace
}  // namespace shardrun::job
