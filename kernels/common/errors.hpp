#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "base/error.hpp"

namespace shardrun::kernels {

/** A kernel was asked for a backend this build does not contain. */
class NotCompiled : public Error {
public:
    NotCompiled(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/** A CUDA runtime or cuBLAS call failed. */
class CudaError : public Error {
public:
    CudaError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/** Kernel parameters that can never run (size <= 0, sigma <= 0, unstable dt, too much memory). */
class InvalidKernelArgument : public Error {
public:
    InvalidKernelArgument(const char* file, int line, const std::string& what) : Error(file, line, what) {}
    /** @param field  the parameter at fault ("dt", "sigma", "n"), so callers can say "params.dt: ..." */
    InvalidKernelArgument(const char* file, int line, std::string field, const std::string& what)
        : Error(file, line, what), field_(std::move(field))
    {
    }

    /** The parameter at fault; empty when the message names no single one. */
    const std::string& field() const noexcept { return field_; }

private:
    std::string field_;
};

}  // namespace shardrun::kernels
