#pragma once

#include <cstdint>

#include "runner/job/job_spec.hpp"

namespace shardrun::run {

/**
 * Items of `data.input: file.h5:/dataset`: the dataset's first dimension.
 * @throws JobFileError naming data.input when the file or dataset cannot be read
 */
std::uint64_t input_items(const job::JobSpec& spec);

}  // namespace shardrun::run
