#include "runner/gpu/nvml_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>

namespace shardrun::gpu {
namespace {

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out)
{
    out = reinterpret_cast<Fn>(::dlsym(handle, name));
    return out != nullptr;
}

bool is_index(const std::string& entry)
{
    return !entry.empty() && entry.find_first_not_of("0123456789") == std::string::npos;
}

/** The admission check's optional calls (issue 38); drivers before 535 name the reasons "throttle". */
void resolve_admission_evidence(void* handle, NvmlLibrary::Functions& fn)
{
    resolve(handle, "nvmlDeviceGetClockInfo", fn.clock);
    resolve(handle, "nvmlDeviceGetMaxClockInfo", fn.max_clock);
    if (!resolve(handle, "nvmlDeviceGetCurrentClocksEventReasons", fn.clocks_event_reasons)) {
        resolve(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", fn.clocks_event_reasons);
    }
    resolve(handle, "nvmlDeviceGetRetiredPagesPendingStatus", fn.retired_pages_pending);
    resolve(handle, "nvmlDeviceGetRemappedRows", fn.remapped_rows);
}

}  // namespace

std::string nvml_library_path()
{
    const char* path = std::getenv("SHARDRUN_NVML_LIBRARY");
    return path != nullptr && *path != '\0' ? path : "libnvidia-ml.so.1";
}

std::shared_ptr<NvmlLibrary> NvmlLibrary::open(std::string& why_not)
{
    const auto path = nvml_library_path();
    std::shared_ptr<NvmlLibrary> library(new NvmlLibrary());
    library->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library->handle_ == nullptr) {
        const char* error = ::dlerror();
        why_not = "no NVML library: " + (error != nullptr ? std::string(error) : path);
        return nullptr;
    }
    auto& fn = library->fn_;
    auto* h = library->handle_;
    // The sampling calls are required: a library without one of them is not one shardrun can use.
    std::string missing;
    const auto require = [&](const char* name, auto& out) {
        if (!resolve(h, name, out) && missing.empty()) missing = name;
    };
    require("nvmlInit_v2", fn.init);
    require("nvmlShutdown", fn.shutdown);
    require("nvmlErrorString", fn.error_string);
    require("nvmlSystemGetDriverVersion", fn.driver_version);
    require("nvmlDeviceGetCount_v2", fn.device_count);
    require("nvmlDeviceGetHandleByIndex_v2", fn.handle_by_index);
    require("nvmlDeviceGetHandleByUUID", fn.handle_by_uuid);
    require("nvmlDeviceGetName", fn.name);
    require("nvmlDeviceGetUUID", fn.uuid);
    require("nvmlDeviceGetMemoryInfo", fn.memory);
    require("nvmlDeviceGetUtilizationRates", fn.utilization);
    require("nvmlDeviceGetTemperature", fn.temperature);
    require("nvmlDeviceGetTotalEnergyConsumption", fn.energy);
    if (!missing.empty()) {
        why_not = "NVML library " + path + " lacks " + missing;
        return nullptr;
    }
    resolve(h, "nvmlDeviceGetComputeRunningProcesses_v3", fn.processes);
    resolve(h, "nvmlDeviceGetTotalEccErrors", fn.ecc);
    resolve(h, "nvmlDeviceGetRetiredPages", fn.retired_pages);
    const bool events = resolve(h, "nvmlEventSetCreate", fn.event_set_create) &&
                        resolve(h, "nvmlDeviceRegisterEvents", fn.register_events) &&
                        resolve(h, "nvmlEventSetWait_v2", fn.event_set_wait) &&
                        resolve(h, "nvmlEventSetFree", fn.event_set_free);
    if (!events) fn.event_set_create = nullptr;
    // GPM: a driver before 520 (or a library without it) has none; one missing call means no GPM.
    const bool gpm = resolve(h, "nvmlGpmQueryDeviceSupport", fn.gpm_query_support) &&
                     resolve(h, "nvmlGpmSampleAlloc", fn.gpm_sample_alloc) &&
                     resolve(h, "nvmlGpmSampleFree", fn.gpm_sample_free) &&
                     resolve(h, "nvmlGpmSampleGet", fn.gpm_sample_get) &&
                     resolve(h, "nvmlGpmMigSampleGet", fn.gpm_mig_sample_get) &&
                     resolve(h, "nvmlGpmMetricsGet", fn.gpm_metrics_get);
    if (!gpm) fn.gpm_query_support = nullptr;
    const bool mig = resolve(h, "nvmlDeviceIsMigDeviceHandle", fn.is_mig_handle) &&
                     resolve(h, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle", fn.mig_parent) &&
                     resolve(h, "nvmlDeviceGetGpuInstanceId", fn.gpu_instance_id);
    if (!mig) fn.is_mig_handle = nullptr;
    resolve_admission_evidence(h, fn);
    if (const auto code = fn.init(); code != nvml::success) {
        why_not = "nvmlInit_v2 failed: " + library->error_text(code);
        return nullptr;
    }
    library->initialised_ = true;
    return library;
}

NvmlLibrary::~NvmlLibrary()
{
    if (initialised_) fn_.shutdown();
    // Not dlclose'd: NVML may keep threads of its own, and the process ends soon after anyway.
}

std::string NvmlLibrary::error_text(nvml::Return code) const
{
    const char* text = fn_.error_string != nullptr ? fn_.error_string(code) : nullptr;
    return (text != nullptr ? std::string(text) : std::string("error")) + " (" + std::to_string(code) + ")";
}

std::vector<nvml::Device> NvmlLibrary::devices_of(const std::string& visible_id, std::string& why_not) const
{
    std::vector<nvml::Device> devices;
    std::istringstream entries(visible_id);
    for (std::string entry; std::getline(entries, entry, ',');) {
        nvml::Device device = nullptr;
        // An index counts in NVML's order (PCI bus), which is CUDA's with CUDA_DEVICE_ORDER=PCI_BUS_ID;
        // a UUID (GPU-..., MIG-...) names one device whatever the order.
        const auto code = is_index(entry) ? fn_.handle_by_index(static_cast<unsigned>(std::stoul(entry)), &device)
                                          : fn_.handle_by_uuid(entry.c_str(), &device);
        if (code != nvml::success) {
            why_not = "NVML has no device '" + entry + "': " + error_text(code);
            return {};
        }
        devices.push_back(device);
    }
    if (devices.empty()) why_not = "the rank is bound to no GPU";
    return devices;
}

std::vector<NvmlDeviceInfo> NvmlLibrary::all_devices() const
{
    std::vector<NvmlDeviceInfo> out;
    unsigned int count = 0;
    if (fn_.device_count(&count) != nvml::success) return out;
    for (unsigned int i = 0; i < count; ++i) {
        nvml::Device device = nullptr;
        if (fn_.handle_by_index(i, &device) != nvml::success) continue;
        char name[nvml::device_name_size] = {};
        char uuid[nvml::device_uuid_size] = {};
        fn_.name(device, name, sizeof name);
        fn_.uuid(device, uuid, sizeof uuid);
        out.push_back({name, uuid});
    }
    return out;
}

std::string NvmlLibrary::driver_version() const
{
    char version[nvml::driver_version_size] = {};
    return fn_.driver_version(version, sizeof version) == nvml::success ? std::string(version) : std::string("unknown");
}

}  // namespace shardrun::gpu
