#pragma once

// What the job tests ask of a bad job file: the one-line JobFileError message of parsing `text`
// as "bad.yaml", or "" when it parsed.
#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"

namespace shardrun::job {

inline std::string job_file_error(const std::string& text, const std::vector<std::string>& known_tasks,
                                  const std::vector<std::string>& overrides = {})
{
    try {
        parse_job("bad.yaml", text, overrides, known_tasks);
    } catch (const JobFileError& error) {
        return error.what();
    }
    return "";
}

}  // namespace shardrun::job
