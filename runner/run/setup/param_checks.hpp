#pragma once

#include <cstdint>
#include <string>

#include "runner/job/job_spec.hpp"
#include "runner/job/unset_rule_param_error.hpp"
#include "runner/tasks/param_table.hpp"

namespace shardrun::run {

/**
 * Checks a job's parameters against its task kind's table before anything runs: every name
 * it gives (under params: and as sweep axes) must be one of the kind's, and every value (each
 * fixed one, each value of each sweep axis) must have the declared type and range.
 * @throws JobFileError "job.yaml:5:7: params.n: n = 0 must be > 0", at the value's location
 *         (for a value made by linspace/logspace/range, at the generator)
 */
void check_params(const job::JobSpec& spec, const tasks::ParamTable& table);

/**
 * Puts the location of the field that `message` starts with ("params.batch: ...", "data.input:
 * ...") in front of it: the value of that parameter at sweep point `point`, or the field's
 * place in the job file; the job file alone when the field is not one of those.
 * @param message  what TaskKind::validate() threw
 */
std::string locate_kind_error(const job::JobSpec& spec, std::uint64_t point, const std::string& message);

/**
 * An auto_device rule that compares a name the job does not set: when `table` (the job's kind's)
 * takes that name, says so ("'m' is a parameter of gemm that this job does not set; set it under
 * params: or sweep it"), not that it does not exist; otherwise the job reader's line as it is.
 * @throws JobFileError  always
 */
[[noreturn]] void refuse_unset_rule_param(const job::UnsetRuleParamError& error, const tasks::ParamTable& table);

}  // namespace shardrun::run
