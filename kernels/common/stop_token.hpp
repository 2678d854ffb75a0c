#pragma once

#include <atomic>
#include <string>

#include "base/error.hpp"

namespace shardrun::kernels {

/** A kernel returned before its work was done because its stop token was set: no result. */
class Stopped : public Error {
public:
    Stopped(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/**
 * What a kernel's long loop polls (heat2d's steps, montecarlo's samples, blur's images, gemm's
 * blocks, train's steps; CUDA kernels between launches) to end early when its caller stops.
 * The caller owns the flag; kernels only read it, so they need not know who sets it or why.
 * A default token never stops.
 */
class StopToken {
public:
    StopToken() = default;
    explicit StopToken(const std::atomic<bool>* flag) noexcept : flag_(flag) {}

    bool stop_requested() const noexcept { return flag_ != nullptr && flag_->load(std::memory_order_relaxed); }

    /** Throws Stopped naming `kernel` when the flag is set: a kernel's way out between its steps. */
    void throw_if_stopped(const char* kernel) const
    {
        if (stop_requested()) SHARDRUN_THROW(Stopped, std::string(kernel) + ": stopped before it finished");
    }

private:
    const std::atomic<bool>* flag_ = nullptr;
};

}  // namespace shardrun::kernels
