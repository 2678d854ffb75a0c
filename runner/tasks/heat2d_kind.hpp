#pragma once

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: heat2d`: the built-in heat2d kernel (see docs of kernels/heat2d/heat2d.hpp for its parameters). */
class Heat2dKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "heat2d"; }
    /** The parameters `task: heat2d` takes (`shardrun kinds heat2d` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
