#pragma once

#include <string>

#include "io/gather/task_table.hpp"

namespace shardrun::io::bench {

/**
 * The alternative to consolidation, measured here and not shipped: writes `target` with
 * /results/<field> as a Virtual Dataset mapping each run of consecutive task ids to the
 * rows of its shard segment (source paths relative to the master's folder, NaN fill).
 * @return the number of mappings per field
 */
std::size_t write_vds_master(const std::string& target, const TaskTable& table, const std::string& field);

/** Opens `file` and reads /results/<field> (float64) whole; returns seconds. */
double read_field_seconds(const std::string& file, const std::string& field);

}  // namespace shardrun::io::bench
