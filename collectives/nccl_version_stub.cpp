#include "collectives/nccl_version.hpp"

namespace shardrun::collectives {

std::string nccl_version() { return ""; }

}  // namespace shardrun::collectives
