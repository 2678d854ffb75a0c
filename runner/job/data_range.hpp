#pragma once

#include <cstdint>

namespace shardrun::job {

/** The half-open data range [start, end) of a task, when the job has `data:`. */
struct DataRange {
    std::uint64_t start = 0;
    std::uint64_t end = 0;
};

}  // namespace shardrun::job
