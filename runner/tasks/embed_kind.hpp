#pragma once

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: embed`: the built-in embed kernel (see docs of kernels/embed/embed.hpp for its parameters). */
class EmbedKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "embed"; }
    /** The parameters `task: embed` takes (`shardrun kinds embed` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
