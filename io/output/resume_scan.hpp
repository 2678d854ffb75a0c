#pragma once

#include <optional>
#include <string>

#include "io/gather/task_stream.hpp"
#include "io/output_spec.hpp"

namespace shardrun::io {

/**
 * @internal SHA-256 over the name, inode, size, mtime and ctime of every committed segment
 * of element `array_index`: it changes whenever a segment is added, removed, rewritten or
 * touched, and costs a stat per segment, no read. The master records it (root attribute
 * `segments_digest`) so a resume can trust a complete master instead of reading every row.
 */
std::string segments_digest(const std::string& path, int array_index);

/**
 * @internal The status counts of <path> when it is a finished shards-layout master of this
 * job (one array element, same parameters hash and task count, `complete`) written from
 * exactly the segments there are now, or consolidated with no segment left (none was added
 * since); nullopt otherwise (absent, torn, another job, or a
 * segment changed since), and then the rows must be read.
 */
std::optional<StatusCounts> current_master_counts(const OutputOptions& options, const JobMetadata& metadata);

}  // namespace shardrun::io
