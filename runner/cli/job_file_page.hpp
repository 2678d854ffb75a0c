#pragma once

#include <string>

namespace shardrun::cli {

/**
 * docs/reference/job-file.md: one section per mapping of the job file (the top level, then
 * schedule, data, ...), each a table of its fields (field, type, default, allowed, description),
 * all read from runner/job/job_fields.hpp, the table the parser takes its keys and defaults from.
 */
std::string job_file_page();

}  // namespace shardrun::cli
