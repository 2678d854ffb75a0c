#pragma once

#include <string>

namespace shardrun::collectives {

/** NCCL version linked into this build ("2.27.3"), or "" when built without NCCL. */
std::string nccl_version();

}  // namespace shardrun::collectives
