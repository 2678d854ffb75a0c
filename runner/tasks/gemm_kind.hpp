#pragma once

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** `task: gemm`: the built-in gemm kernel (see docs of kernels/gemm/gemm.hpp for its parameters). */
class GemmKind : public TaskKind {
public:
    std::string_view name() const noexcept override { return "gemm"; }
    /** The parameters `task: gemm` takes (`shardrun kinds gemm` prints them). */
    static const ParamTable& parameters();

    void validate(const job::ParamMap& params, const JobView& job) const override;
    std::vector<io::FieldSpec> fields(const job::ParamMap& params) const override;
    TaskOutcome run(const TaskContext& context) const override;
};

}  // namespace shardrun::tasks
