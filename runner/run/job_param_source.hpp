#pragma once

#include <vector>

#include "io/job_output.hpp"
#include "runner/run/prepared_job.hpp"

namespace shardrun::run {

/** /params and /ranges of every task of the job, as the master file stores them. */
struct TaskColumns {
    std::vector<io::ParamColumn> params;
    io::TaskRanges ranges;
};

/**
 * One column per swept parameter (int64 when every value is an integer, float64 when
 * numbers, strings otherwise), each T long, computed once per sweep point.
 */
TaskColumns param_columns(const PreparedJob& job);

}  // namespace shardrun::run
