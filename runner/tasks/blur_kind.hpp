#pragma once

#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: blur`: the built-in blur kernel (see docs of kernels/blur/blur.hpp for its parameters). */
class BlurKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "blur"; }
    void validate(const ParamMap& params) const override;
    std::vector<io::FieldSpec> fields(const ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
