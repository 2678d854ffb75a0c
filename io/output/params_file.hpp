#pragma once

#include <filesystem>
#include <vector>

#include "io/param_source.hpp"

namespace shardrun::io {

/**
 * @internal <path>.shards/a<index>/params.h5: the /params and /ranges columns of the
 * whole job, written by finalize_output so that merge_output can rebuild them (read back
 * with FileParamSource).
 */
void write_params_file(const std::filesystem::path& file, const ParamSource& source);

}  // namespace shardrun::io
