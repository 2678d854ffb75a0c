// auto_device and gpu_fault_limit (issue 26): a bad rule is one line pointing into the rule's text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/unset_rule_param_error.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop"};

std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {})
{
    return job_file_error(text, known_tasks, overrides);
}

const std::string exec_job = "task: exec\nsweep: {n: [10, 2000]}\nexec: {argv: [/bin/true]}\n";

TEST(GpuFields, AGoodRuleAndLimitAreKept)
{
    const auto spec = parse_job("ok.yaml", exec_job + "auto_device: {cpu_if: \"n < 1000\"}\ngpu_fault_limit: 3\n", {},
                                known_tasks);
    EXPECT_EQ(spec.auto_device_cpu_if, "n < 1000");
    EXPECT_EQ(spec.gpu_fault_limit, 3);
    EXPECT_EQ(parse_job("ok.yaml", exec_job, {}, known_tasks).gpu_fault_limit, 2) << "the default";
}

TEST(GpuFields, AnUnknownParameterPointsAtItsColumnWithASuggestion)
{
    // line 4: auto_device: {cpu_if: "n < 1000 and nn > 3"}; the rule's text starts at column 24.
    const auto message = error_of(exec_job + "auto_device: {cpu_if: \"n < 1000 and nn > 3\"}\n");
    EXPECT_EQ(message, "bad.yaml:4:37: auto_device.cpu_if: 'nn' is not a parameter of this job; did you mean 'n'? "
                       "known: n")
        << message;
}

TEST(GpuFields, BadOperatorsNumbersAndShapesAreOneLine)
{
    EXPECT_NE(error_of(exec_job + "auto_device: {cpu_if: n => 3}\n").find("bad.yaml:4:25: auto_device.cpu_if: '=>' is not an operator"),
              std::string::npos);
    EXPECT_NE(error_of(exec_job + "auto_device: {cpu_if: \"n < ten\"}\n").find("'ten' is not a number"), std::string::npos);
    EXPECT_NE(error_of(exec_job + "auto_device: {cpu_fi: \"n < 1\"}\n").find("did you mean 'cpu_if'?"), std::string::npos);
    EXPECT_NE(error_of(exec_job + "auto_device: n < 1\n").find("auto_device: must be {cpu_if:"), std::string::npos);
    EXPECT_NE(error_of(exec_job + "gpu_fault_limit: 0\n").find("gpu_fault_limit"), std::string::npos);
    EXPECT_NE(error_of(exec_job + "device: cuda\nauto_device: {cpu_if: \"n < 1\"}\n").find("this job says device: cuda"),
              std::string::npos);
    EXPECT_NE(error_of("task: exec\nsweep: {n: [1]}\nexec: {argv: [/bin/true], mode: worker}\nauto_device: {cpu_if: \"n < 1\"}\n")
                  .find("exec.mode: worker"),
              std::string::npos);
}

TEST(GpuFields, AnUnsetNameCarriesWhatTheRunnerNeedsToTellAKindsParameterFromATypo)
{
    // The job alone cannot know gemm's parameters: the error keeps the name, the kind, the place and
    // what the job sets, so the runner can say "'m' is a parameter of gemm that this job does not set".
    try {
        parse_job("bad.yaml", exec_job + "auto_device: {cpu_if: \"m < 3\"}\n", {}, known_tasks);
        FAIL() << "expected UnsetRuleParamError";
    } catch (const UnsetRuleParamError& error) {
        EXPECT_EQ(error.name(), "m");
        EXPECT_EQ(error.task(), "exec");
        EXPECT_EQ(error.place(), "bad.yaml:4:24");
        EXPECT_EQ(error.set(), std::vector<std::string>{"n"});
        EXPECT_EQ(std::string(error.what()).rfind("bad.yaml:4:24: auto_device.cpu_if: 'm' is not a parameter of this job", 0), 0u)
            << error.what();
    }
}

TEST(GpuFields, ARuleFromSetIsNamedBySet)
{
    const auto message = error_of(exec_job, {"auto_device.cpu_if=m < 3"});
    EXPECT_EQ(message.rfind("--set auto_device.cpu_if: 'm' is not a parameter", 0), 0u) << message;
}

}  // namespace
}  // namespace shardrun::job
