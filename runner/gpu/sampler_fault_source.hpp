#pragma once

// The NVML sampler as quarantine's source of evidence (runner/gpu/device_fault_source.hpp):
// set for as long as a rank's sampler runs, so Xid and ECC reports of a real GPU count against it.
#include <memory>
#include <string>

#include "runner/gpu/device_fault_source.hpp"
#include "runner/gpu/telemetry_sampler.hpp"

namespace shardrun::gpu {

/** Reads a rank's sampler; the rank's GPUs answer as one device, whichever ordinal is asked. */
class SamplerFaultSource final : public DeviceFaultSource {
public:
    explicit SamplerFaultSource(TelemetrySampler& sampler) : sampler_(sampler) {}
    DeviceFaultEvents totals(int) const override { return sampler_.fault_totals(); }
    std::string uuid(int) const override { return sampler_.uuid(); }

private:
    TelemetrySampler& sampler_;
};

/** Makes `sampler` (when not null) the fault source until this scope ends; declare it after the sampler. */
class FaultSourceScope {
public:
    explicit FaultSourceScope(TelemetrySampler* sampler) : set_(sampler != nullptr)
    {
        if (set_) set_device_fault_source(std::make_shared<SamplerFaultSource>(*sampler));
    }
    ~FaultSourceScope()
    {
        if (set_) set_device_fault_source(nullptr);
    }
    FaultSourceScope(const FaultSourceScope&) = delete;
    FaultSourceScope& operator=(const FaultSourceScope&) = delete;

private:
    bool set_;
};

}  // namespace shardrun::gpu
