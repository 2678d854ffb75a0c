#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {

/**
 * The largest value of the integer parameter `name` over every task: a fixed `params:` value,
 * or each value of the sweep axis that sets it (that axis only, not the whole product).
 * @return the value, or why it cannot size a dimension (unknown name, a value that is not a
 *         whole number of at least 1), one line without a location
 */
std::variant<std::uint64_t, std::string> parameter_extent(const Sweep& sweep, const ParamMap& params,
                                                          const std::string& name);

/**
 * The fields a task stores: `results` and, after them, one int64 scalar <field>_length per
 * parameter-shaped field, in the same order.
 */
std::vector<io::FieldSpec> stored_fields(const std::vector<io::FieldSpec>& results);

/** Whether any of `fields` has a parameter dimension. */
bool has_param_shapes(const std::vector<io::FieldSpec>& fields);

}  // namespace shardrun::job
