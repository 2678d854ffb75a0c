#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardrun::tasks {

/**
 * The variables that size the thread pools of OpenMP, the BLAS libraries and numexpr (PyTorch's
 * intra-op threads follow OMP_NUM_THREADS and MKL_NUM_THREADS): shardrun sets them all to the
 * task's CPU share, or none of them when the job (exec.env) or the rank's environment sets any,
 * so a user's choice is never half overridden.
 */
inline constexpr std::array<std::string_view, 5> thread_variable_names{
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS"};

/**
 * "NAME=value" entries a task (or worker) gets for `threads` threads: SHARDRUN_CPU_THREADS always
 * (when threads > 0), and the variables above unless `inherited` ("NAME=value", the rank's
 * environment) or `job_env` (exec.env) names one of them.
 */
std::vector<std::string> thread_variables(int threads, const std::vector<std::string>& inherited,
                                          const std::vector<std::pair<std::string, std::string>>& job_env);

/** Whether this process's environment sets any of the variables above. */
bool environment_sets_threads();

}  // namespace shardrun::tasks
