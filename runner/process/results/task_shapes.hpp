#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "runner/job/param_map.hpp"

namespace shardrun::process {

/**
 * The shape each declared field takes in one task, where it differs from the declared one: a
 * short last chunk's rows (FieldSpec::item_rows) and the task's own value of a parameter
 * dimension (FieldSpec::length_param, declared at the largest value over the job).
 * @param rows    rows of the task's data range (end - start); nullopt without a range
 * @param params  the task's parameters; nullptr leaves parameter dimensions as declared
 */
std::vector<io::FieldSpec> task_shapes(const std::vector<io::FieldSpec>& fields, std::optional<std::size_t> rows,
                                       const job::ParamMap* params);

/**
 * Pads each value, read in its task shape, with the field's fill value (NaN, or the integer
 * minimum) along its shorter axis up to the declared shape, as every task's row is stored.
 */
void pad_to_declared(io::TaskValues& values, const std::vector<io::FieldSpec>& shapes,
                     const std::vector<io::FieldSpec>& fields);

/** Appends each parameter-shaped field's extent in this task: the values of the <field>_length columns. */
void append_lengths(io::TaskValues& values, const std::vector<io::FieldSpec>& shapes);

/**
 * `reason` (a task's results did not match their shapes) with what a parameter dimension of
 * the field it names is in this task: "...; loss's dimension {epochs} is 3 in this task".
 */
std::string with_length_note(std::string reason, const std::vector<io::FieldSpec>& shapes);

}  // namespace shardrun::process
