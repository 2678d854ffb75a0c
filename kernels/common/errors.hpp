#pragma once

#include <stdexcept>
#include <string>

namespace shardrun::kernels {

/** A kernel was asked for a backend this build does not contain. */
class NotCompiled : public std::runtime_error {
public:
    explicit NotCompiled(const std::string& what) : std::runtime_error(what) {}
};

/** A CUDA runtime or cuBLAS call failed. */
class CudaError : public std::runtime_error {
public:
    explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

/** Kernel parameters that can never run (size <= 0, sigma <= 0, unstable dt, too much memory). */
class InvalidKernelArgument : public std::invalid_argument {
public:
    explicit InvalidKernelArgument(const std::string& what) : std::invalid_argument(what) {}
};

}  // namespace shardrun::kernels
