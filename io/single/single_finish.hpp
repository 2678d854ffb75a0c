#pragma once

#include <filesystem>

#include "io/gather/task_stream.hpp"
#include "io/master/master_file.hpp"

namespace shardrun::io::single {

/**
 * layout single: turns the element's data file into a master in place (attributes, params,
 * fill of rows without a result, found from the file's own /tasks/status a block at a time,
 * host and device made variable-length) and, when `target` is not empty, renames it there.
 * `complete` is stored as info.complete and no task left pending.
 * @return the counts of the file's rows
 */
StatusCounts finish_single_streamed(const std::filesystem::path& single, const std::filesystem::path& target,
                                    const master::MasterInfo& info);

}  // namespace shardrun::io::single
