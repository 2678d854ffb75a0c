#pragma once

// One row of a results file's /gpus table (issue 38, point 1): what a GPU's admission check
// measured and decided before the rank took work. io's vocabulary: no HDF5 or MPI here.
#include <cstdint>
#include <limits>
#include <string>

namespace shardrun::io {

/** One GPU of one rank, as the admission check saw it. */
struct GpuCheckRow {
    std::int32_t array_index = 0;
    std::int32_t rank = 0;
    std::string host;
    std::string device;      ///< "cuda:0": the ordinal the rank's process uses
    std::string visible_id;  ///< its CUDA_VISIBLE_DEVICES entry ("2", "GPU-...", "MIG-...")
    std::string uuid;        ///< NVML's; "" when unknown
    std::string model;       ///< the spec table's name ("H100 SXM"), else the device's own name
    std::string precision;   ///< of the GEMM: bf16 | fp32 | fp64
    double gemm_tflops = std::numeric_limits<double>::quiet_NaN();
    double copy_gbps = std::numeric_limits<double>::quiet_NaN();  ///< device-to-device, bytes copied per second
    double floor_tflops = std::numeric_limits<double>::quiet_NaN();  ///< what the GEMM had to reach; NaN: not judged
    double check_seconds = 0;          ///< wall time of the whole check
    std::int32_t sm_clock_mhz = -1;    ///< after the GEMM; -1: not read (no NVML)
    std::int32_t sm_clock_max_mhz = -1;
    std::int32_t mem_clock_mhz = -1;
    std::string throttle;  ///< NVML's clocks event reasons after the GEMM ("sw_power_cap"), "" for none
    std::string errors;    ///< Xid, uncorrected ECC, pending retirement or remapping; "" for none
    bool admitted = true;
    std::string reason;    ///< why admitted or not, with the figures compared
};

}  // namespace shardrun::io
