#pragma once

#include "runner/core/task_kind.hpp"
#include "runner/tasks/param_table.hpp"

namespace shardrun::tasks {

/**
 * Does nothing but report its task id as the float64 field `value` (and `items`, the
 * length of its data range): the scheduler's and writer's overhead, for tests and benchmarks.
 */
class NoopKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "noop"; }
    /** The parameters `task: noop` takes (`shardrun kinds noop` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    bool fields_depend_on_params() const noexcept override { return false; }
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
