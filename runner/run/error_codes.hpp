#pragma once

#include <exception>

namespace shardrun::run {

/**
 * The exit code a run ends with after `error`: shardrun::Error's exit_code() (2 for bad input:
 * usage, job file, output location, input dataset), 1 for any other exception.
 */
int exit_code_of(const std::exception& error) noexcept;

}  // namespace shardrun::run
