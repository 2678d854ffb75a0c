#pragma once

#include <string>

#include "kernels/common/stop_token.hpp"

namespace shardrun::kernels {

/** Which backend runs a kernel call. */
enum class DeviceKind { cpu, cuda };

/**
 * A backend and, for CUDA, the device ordinal inside this process's visible set; and the stop
 * token the kernel's loops poll. The token travels with the device because every kernel call,
 * CPU and CUDA alike, already takes one: no entry point or CUDA table changes for it.
 */
struct Device {
    DeviceKind kind = DeviceKind::cpu;
    int ordinal = -1;
    StopToken stop{};

    static Device cpu() { return {DeviceKind::cpu, -1, {}}; }
    static Device cuda(int ordinal) { return {DeviceKind::cuda, ordinal, {}}; }
    /** This device, whose kernels end early (throwing Stopped) once `token` is set. */
    Device stoppable(StopToken token) const
    {
        Device copy = *this;
        copy.stop = token;
        return copy;
    }

    /** "cpu" or "cuda:<ordinal>". */
    std::string label() const { return kind == DeviceKind::cpu ? "cpu" : "cuda:" + std::to_string(ordinal); }
};

}  // namespace shardrun::kernels
