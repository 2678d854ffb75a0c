#pragma once

#include <optional>
#include <string>

namespace shardrun::gpu {

/** The absolute path of `program` in a folder of PATH, as execvp would find it; empty when none has it. */
std::string find_on_path(const std::string& program);

/** What `nvidia-smi -L` prints; nullopt when nvidia-smi is not on PATH or fails. */
std::optional<std::string> nvidia_smi_list();

}  // namespace shardrun::gpu
