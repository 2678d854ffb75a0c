#pragma once

#include <exception>

namespace shardrun::run {

/** 2 for bad input (usage, job file, output location), 1 for anything else. */
int exit_code_of(const std::exception& error) noexcept;

}  // namespace shardrun::run
