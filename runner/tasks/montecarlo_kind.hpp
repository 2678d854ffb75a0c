#pragma once

#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: montecarlo`: the built-in montecarlo kernel (see docs of kernels/montecarlo/montecarlo.hpp for its parameters). */
class MonteCarloKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "montecarlo"; }
    void validate(const ParamMap& params) const override;
    std::vector<io::FieldSpec> fields(const ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
