#pragma once

#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: embed`: the built-in embed kernel (see docs of kernels/embed/embed.hpp for its parameters). */
class EmbedKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "embed"; }
    void validate(const ParamMap& params) const override;
    std::vector<io::FieldSpec> fields(const ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
