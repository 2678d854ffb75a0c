#include "runner/gpu/admission_rule.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shardrun::gpu {
namespace {

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string with_throttle(std::string reason, const GpuMeasure& gpu)
{
    return gpu.throttle.empty() ? reason : reason + "; clocks held back by " + gpu.throttle;
}

/** The verdict on speed alone, for a GPU that ran the check without errors. */
AdmissionVerdict judge_speed(const GpuMeasure& gpu, const std::vector<const GpuMeasure*>& peers, const AdmissionRule& rule)
{
    AdmissionVerdict verdict;
    if (peers.size() >= 2) {  // itself and at least one other
        std::vector<double> gemm, copy;
        for (const auto* peer : peers) {
            gemm.push_back(peer->gemm_tflops);
            copy.push_back(peer->copy_gbps);
        }
        const double gemm_median = median(gemm), copy_median = median(copy);
        verdict.floor_tflops = rule.min_fraction * gemm_median;
        const auto basis = fmt::format("{} x the median {{:.4g}} of {} {} GPUs", rule.min_fraction, peers.size(), gpu.model);
        if (gpu.gemm_tflops < verdict.floor_tflops) {
            verdict.admitted = false;
            verdict.reason = with_throttle(
                fmt::format(fmt::runtime("GEMM {:.4g} TFLOP/s below " + basis), gpu.gemm_tflops, gemm_median), gpu);
        } else if (gpu.copy_gbps < rule.min_fraction * copy_median) {
            verdict.admitted = false;
            verdict.reason = with_throttle(fmt::format(fmt::runtime("copy {:.4g} GB/s below " + basis), gpu.copy_gbps, copy_median), gpu);
        } else {
            verdict.reason = fmt::format(fmt::runtime("GEMM {:.4g} TFLOP/s, copy {:.4g} GB/s: at least " + basis + " and {:.4g}"),
                                         gpu.gemm_tflops, gpu.copy_gbps, gemm_median, copy_median);
        }
        return verdict;
    }
    if (gpu.spec_peak > 0) {  // alone: held to its own datasheet, so a lone throttled GPU is still caught
        verdict.floor_tflops = rule.spec_fraction * gpu.spec_peak;
        const auto basis = fmt::format("{} x the {} spec peak {:.4g} (no peer of its model)", rule.spec_fraction,
                                       gpu.model, gpu.spec_peak);
        verdict.admitted = gpu.gemm_tflops >= verdict.floor_tflops;
        verdict.reason = verdict.admitted ? fmt::format("GEMM {:.4g} TFLOP/s: at least {}", gpu.gemm_tflops, basis)
                                          : with_throttle(fmt::format("GEMM {:.4g} TFLOP/s below {}", gpu.gemm_tflops, basis), gpu);
        return verdict;
    }
    verdict.reason = fmt::format("GEMM {:.4g} TFLOP/s not judged: no peer of its model and '{}' is not in the spec table",
                                 gpu.gemm_tflops, gpu.model);
    return verdict;
}

}  // namespace

std::vector<AdmissionVerdict> judge_admission(const std::vector<GpuMeasure>& all, const AdmissionRule& rule)
{
    std::vector<AdmissionVerdict> verdicts;
    for (const auto& gpu : all) {
        if (!gpu.failure.empty()) {
            verdicts.push_back({false, -1, "the check failed: " + gpu.failure});
            continue;
        }
        std::vector<const GpuMeasure*> peers;
        for (const auto& other : all) {
            if (other.failure.empty() && other.model == gpu.model) peers.push_back(&other);
        }
        auto verdict = judge_speed(gpu, peers, rule);
        if (!gpu.errors.empty()) {  // a fast GPU that reports errors may compute wrong results
            verdict.admitted = false;
            verdict.reason = "errors: " + gpu.errors;
        }
        verdicts.push_back(std::move(verdict));
    }
    return verdicts;
}

}  // namespace shardrun::gpu
