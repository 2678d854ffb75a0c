#pragma once

#include "runner/tasks/param_table.hpp"

namespace shardrun::tasks {

/**
 * The `device` parameter every kind accepts (in params:, a sweep axis or points): where one
 * task runs. The runner reads it, not the kind: it narrows TaskContext::device before run(),
 * and fails a cuda task on a rank without a GPU instead of running it on the CPU.
 */
inline const ParamSpec& device_param()
{
    static const ParamSpec spec = choice_param(
        "device", "auto", {"auto", "cpu", "cuda"},
        "where this task runs: cpu, cuda (the task fails on a rank without a GPU), auto (the rank's device)");
    return spec;
}

}  // namespace shardrun::tasks
