#pragma once

#include <string>

namespace shardrun::collectives {

/**
 * Version of the NCCL in the CUDA backend ("2.27.3"), loading the backend library if need be;
 * "" when built without NCCL or when the backend cannot be loaded.
 */
std::string nccl_version();

}  // namespace shardrun::collectives
