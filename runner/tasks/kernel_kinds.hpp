#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runner/tasks/param_table.hpp"
#include "runner/tasks/task_kind.hpp"

namespace shardrun::tasks {

/** A built-in kernel task kind: its name, what it does, its parameters and how to make it. */
struct KernelKindEntry {
    std::string name;
    std::string summary;       ///< one line for `shardrun kinds`
    const ParamTable* params;  ///< the kind's parameter table (static)
    std::function<std::unique_ptr<TaskKind>()> make;
};

/** The built-in kernel kinds (gemm, blur, heat2d, montecarlo, embed). */
std::vector<KernelKindEntry> kernel_kinds();

}  // namespace shardrun::tasks
