#include "runner/tasks/kernel_kinds.hpp"

namespace shardrun::tasks {

std::vector<KernelKindEntry> kernel_kinds() { return {}; }

}  // namespace shardrun::tasks
