#pragma once

#include <optional>
#include <string>

namespace shardrun::gpu {

/** The absolute path of `program` in a folder of PATH, as execvp would find it; empty when none has it. */
std::string find_on_path(const std::string& program);

/** What `nvidia-smi -L` prints; nullopt when nvidia-smi is not on PATH or fails. */
std::optional<std::string> nvidia_smi_list();

/**
 * What `info` says of MIG on this node: each MIG instance (the devices ranks bind to), that
 * MIG is off, or that nvidia-smi is absent so nothing is known. Lines end with a newline.
 */
std::string mig_report();

}  // namespace shardrun::gpu
