#include "runner/env/build_features.hpp"

#include <boost/version.hpp>
#include <fmt/core.h>

#include "collectives/mpi/environment.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "collectives/nccl_version.hpp"
#include "io/library_info.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "runner/version.hpp"

namespace shardrun::env {
namespace {

std::string cuda_version_text(int code)
{
    return code == 0 ? "none" : std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

}  // namespace

BuildFeatures detect_build_features(kernels::CudaProbe probe)
{
    BuildFeatures features;
    features.version = shardrun_version;
    features.git_commit = shardrun_git_commit;
    const auto cuda = kernels::query_cuda_runtime(probe);
    features.cuda = cuda.compiled;
    features.cuda_devices = cuda.device_count;
    features.no_device_reason = cuda.no_device_reason;
    // NCCL's version comes from the CUDA backend: asked only once that is loaded.
    const auto nccl = cuda.loaded ? collectives::nccl_version() : std::string();
    features.nccl = collectives::nccl::compiled();
    features.hdf5_parallel = io::hdf5_is_parallel();
    auto& libs = features.libraries;
    libs.emplace_back("MPI", collectives::mpi_library_version());
    libs.emplace_back("HDF5", io::hdf5_version() + (features.hdf5_parallel ? " (parallel)" : " (serial)"));
    if (cuda.loaded) {
        libs.emplace_back("CUDA runtime", cuda_version_text(cuda.runtime_version));
        libs.emplace_back("CUDA driver", cuda_version_text(cuda.driver_version));
        libs.emplace_back("cuBLAS", cuda.cublas_version);
    }
    if (!nccl.empty()) libs.emplace_back("NCCL", nccl);
    libs.emplace_back("OpenBLAS", SHARDRUN_OPENBLAS_VERSION);
    libs.emplace_back("Boost", fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000,
                                           BOOST_VERSION % 100));
    libs.emplace_back("yaml-cpp", SHARDRUN_YAML_CPP_VERSION);
    libs.emplace_back("fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                                         FMT_VERSION % 100));
    return features;
}

}  // namespace shardrun::env
