#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/gpu/nvml_api.hpp"

namespace shardrun::gpu {

/** One GPU as NVML names it (for `info`). */
struct NvmlDeviceInfo {
    std::string name;
    std::string uuid;
};

/**
 * NVML, loaded with dlopen on first use: the path in SHARDRUN_NVML_LIBRARY, else
 * "libnvidia-ml.so.1" through the loader's search (LD_LIBRARY_PATH, the driver's folder).
 * Nothing links libnvidia-ml, so a CPU node or a rank without a GPU never loads it.
 * The functions used to sample are required; the fault-evidence ones (ECC, retired pages,
 * events) are optional, null where the library lacks them.
 */
class NvmlLibrary {
public:
    /**
     * Loads and initialises NVML (nvmlInit_v2).
     * @param why_not  set to one line ("no NVML library: ...", "nvmlInit_v2 failed: ...") when it returns null
     */
    static std::shared_ptr<NvmlLibrary> open(std::string& why_not);
    ~NvmlLibrary();
    NvmlLibrary(const NvmlLibrary&) = delete;
    NvmlLibrary& operator=(const NvmlLibrary&) = delete;

    /** The CUDA_VISIBLE_DEVICES entries of a binding ("0,1", "GPU-<uuid>", "MIG-<uuid>") as NVML handles. */
    std::vector<nvml::Device> devices_of(const std::string& visible_id, std::string& why_not) const;
    /** Every GPU NVML sees, in NVML's (PCI bus) order. */
    std::vector<NvmlDeviceInfo> all_devices() const;
    std::string driver_version() const;
    /** "NVML_ERROR_..." text of a return code. */
    std::string error_text(nvml::Return code) const;

    /** The resolved functions; those marked optional may be null. */
    struct Functions {
        nvml::InitFn init = nullptr;
        nvml::ShutdownFn shutdown = nullptr;
        nvml::ErrorStringFn error_string = nullptr;
        nvml::DriverVersionFn driver_version = nullptr;
        nvml::DeviceCountFn device_count = nullptr;
        nvml::HandleByIndexFn handle_by_index = nullptr;
        nvml::HandleByUuidFn handle_by_uuid = nullptr;
        nvml::TextFn name = nullptr;
        nvml::TextFn uuid = nullptr;
        nvml::MemoryFn memory = nullptr;
        nvml::UtilizationFn utilization = nullptr;
        nvml::TemperatureFn temperature = nullptr;
        nvml::EnergyFn energy = nullptr;
        nvml::ProcessesFn processes = nullptr;            ///< optional
        nvml::EccFn ecc = nullptr;                        ///< optional
        nvml::RetiredPagesFn retired_pages = nullptr;     ///< optional
        nvml::EventSetCreateFn event_set_create = nullptr;  ///< optional (all four event calls or none)
        nvml::RegisterEventsFn register_events = nullptr;
        nvml::EventSetWaitFn event_set_wait = nullptr;
        nvml::EventSetFreeFn event_set_free = nullptr;
        // GPM, optional: the six calls or none (gpm_query_support null when absent).
        nvml::GpmQuerySupportFn gpm_query_support = nullptr;
        nvml::GpmSampleAllocFn gpm_sample_alloc = nullptr;
        nvml::GpmSampleFreeFn gpm_sample_free = nullptr;
        nvml::GpmSampleGetFn gpm_sample_get = nullptr;
        nvml::GpmMigSampleGetFn gpm_mig_sample_get = nullptr;
        nvml::GpmMetricsGetFn gpm_metrics_get = nullptr;
        // MIG, optional (all three or none): how a MIG device's GPM sample is taken from its parent.
        nvml::IsMigHandleFn is_mig_handle = nullptr;
        nvml::MigParentFn mig_parent = nullptr;
        nvml::GpuInstanceIdFn gpu_instance_id = nullptr;
        // The admission check's evidence (issue 38), each optional.
        nvml::ClockFn clock = nullptr;
        nvml::ClockFn max_clock = nullptr;
        nvml::ClocksEventReasonsFn clocks_event_reasons = nullptr;  ///< or its older name, ...ClocksThrottleReasons
        nvml::PendingStatusFn retired_pages_pending = nullptr;
        nvml::RemappedRowsFn remapped_rows = nullptr;
    };
    const Functions& fn() const noexcept { return fn_; }

private:
    NvmlLibrary() = default;
    void* handle_ = nullptr;
    bool initialised_ = false;
    Functions fn_;
};

/** Where NVML is loaded from: SHARDRUN_NVML_LIBRARY when set, else "libnvidia-ml.so.1". */
std::string nvml_library_path();

}  // namespace shardrun::gpu
