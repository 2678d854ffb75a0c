#pragma once

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: montecarlo`: the built-in montecarlo kernel (see docs of kernels/montecarlo/montecarlo.hpp for its parameters). */
class MonteCarloKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "montecarlo"; }
    /** The parameters `task: montecarlo` takes (`shardrun kinds montecarlo` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
