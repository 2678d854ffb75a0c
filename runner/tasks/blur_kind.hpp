#pragma once

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: blur`: the built-in blur kernel (see docs of kernels/blur/blur.hpp for its parameters). */
class BlurKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "blur"; }
    /** The parameters `task: blur` takes (`shardrun kinds blur` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
