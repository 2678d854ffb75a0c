#pragma once

#include <string>

namespace shardrun::kernels {

/** Which backend runs a kernel call. */
enum class DeviceKind { cpu, cuda };

/** A backend and, for CUDA, the device ordinal inside this process's visible set. */
struct Device {
    DeviceKind kind = DeviceKind::cpu;
    int ordinal = -1;

    static Device cpu() { return {DeviceKind::cpu, -1}; }
    static Device cuda(int ordinal) { return {DeviceKind::cuda, ordinal}; }

    /** "cpu" or "cuda:<ordinal>". */
    std::string label() const { return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(ordinal); }
};

}  // namespace shardrun::kernels
