#pragma once

#include <filesystem>
#include <vector>

#include "io/job_output.hpp"

namespace shardrun::io {

/**
 * @internal <path>.shards/a<index>/params.h5: the /params and /ranges columns of the
 * whole job, written by finalize_output so that merge_output can rebuild them.
 */
void write_params_file(const std::filesystem::path& file, const std::vector<ParamColumn>& params,
                       const TaskRanges& ranges);

/** Reads the columns named `names` (float64, int64 or string) and the ranges, if any. */
void read_params_file(const std::filesystem::path& file, const std::vector<std::string>& names,
                      std::vector<ParamColumn>& params, TaskRanges& ranges);

}  // namespace shardrun::io
