#pragma once

// Which GPUs may take work (issue 38, point 1), as a pure decision over every GPU's check: a GPU
// with errors, or whose GEMM or copy is below a fraction of the median of the job's GPUs of its
// model, is refused; with no peer of its model, its GEMM is held to a fraction of its spec peak.
#include <string>
#include <vector>

namespace shardrun::gpu {

/** The figures of one GPU's check, as every rank sees them after the exchange. */
struct GpuMeasure {
    std::string model;       ///< what peers share: the spec table's model, else the device's name
    double gemm_tflops = 0;
    double copy_gbps = 0;
    double spec_peak = 0;    ///< the model's spec peak in the check's precision; 0: not in the table
    std::string errors;      ///< Xid, ECC, pending repairs; "" when none
    std::string failure;     ///< the check itself failed (a CUDA error); "" when it ran
    std::string throttle;    ///< clocks event reasons after the GEMM, for the reason text
};

struct AdmissionRule {
    double min_fraction = 0.8;   ///< of the median of the GPUs of one model
    double spec_fraction = 0.5;  ///< of the spec peak, for a GPU with no peer
};

struct AdmissionVerdict {
    bool admitted = true;
    double floor_tflops = -1;  ///< the GEMM's floor; -1 when the speed was not judged
    std::string reason;        ///< "GEMM 350 TFLOP/s below 0.8 x the median 700 of 4 H100 SXM GPUs"
};

/** The verdict of every GPU in `all`, in the same order. Peers: the other GPUs of `all` with the same model that ran the check. */
std::vector<AdmissionVerdict> judge_admission(const std::vector<GpuMeasure>& all, const AdmissionRule& rule);

}  // namespace shardrun::gpu
