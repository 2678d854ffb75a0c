// GPM: what the GPU's SMs actually did (issue 38, point 2). NVML's utilisation only says that
// some kernel was resident; GPM's SM activity says how many SMs were busy.
#include "runner/gpu/gpm_reader.hpp"

#include <fmt/format.h>

namespace shardrun::gpu {
namespace {

/** The GPU whose counters `device` reads: itself, or a MIG device's parent and its GPU instance. */
bool resolve_source(const NvmlLibrary& nvml, nvml::Device device, nvml::Device& parent, std::optional<unsigned>& instance)
{
    const auto& fn = nvml.fn();
    parent = device;
    instance.reset();
    unsigned int is_mig = 0;
    if (fn.is_mig_handle == nullptr || fn.is_mig_handle(device, &is_mig) != nvml::success || is_mig == 0) return true;
    unsigned int id = 0;
    if (fn.mig_parent(device, &parent) != nvml::success || fn.gpu_instance_id(device, &id) != nvml::success) return false;
    instance = id;
    return true;
}

std::string device_name(const NvmlLibrary& nvml, nvml::Device device)
{
    char name[nvml::device_name_size] = {};
    nvml.fn().name(device, name, sizeof name);
    return name;
}

}  // namespace

std::string gpm_why_not(const NvmlLibrary& nvml, nvml::Device device)
{
    const auto& fn = nvml.fn();
    if (fn.gpm_query_support == nullptr) return "the NVML library has no GPM calls (driver older than 520)";
    nvml::Device parent = nullptr;
    std::optional<unsigned> instance;
    if (!resolve_source(nvml, device, parent, instance)) return "NVML does not name this MIG device's parent GPU";
    nvml::GpmSupport support{nvml::gpm_support_version, 0};
    if (const auto code = fn.gpm_query_support(parent, &support); code != nvml::success) {
        return "nvmlGpmQueryDeviceSupport failed: " + nvml.error_text(code);
    }
    if (support.isSupportedDevice == 0) {
        return fmt::format("{} does not support GPM (Hopper or later)", device_name(nvml, parent));
    }
    return "";
}

std::unique_ptr<GpmReader> GpmReader::open(std::shared_ptr<NvmlLibrary> nvml, const std::vector<nvml::Device>& devices,
                                           std::string& why_not)
{
    std::unique_ptr<GpmReader> reader(new GpmReader(nvml));
    for (auto* device : devices) {
        if (const auto why = gpm_why_not(*nvml, device); !why.empty()) {
            why_not = why;
            return nullptr;
        }
        Source source;
        resolve_source(*nvml, device, source.device, source.gpu_instance);
        const auto& fn = nvml->fn();
        if (fn.gpm_sample_alloc(&source.previous) != nvml::success || fn.gpm_sample_alloc(&source.next) != nvml::success) {
            why_not = "nvmlGpmSampleAlloc failed";
            reader->sources_.push_back(source);  // freed by the destructor
            return nullptr;
        }
        reader->sources_.push_back(source);
    }
    return reader;
}

GpmReader::~GpmReader()
{
    for (auto& source : sources_) {
        if (source.previous != nullptr) nvml_->fn().gpm_sample_free(source.previous);
        if (source.next != nullptr) nvml_->fn().gpm_sample_free(source.next);
    }
}

bool GpmReader::take(Source& source, nvml::GpmSample into) const
{
    const auto& fn = nvml_->fn();
    const auto code = source.gpu_instance ? fn.gpm_mig_sample_get(source.device, *source.gpu_instance, into)
                                          : fn.gpm_sample_get(source.device, into);
    return code == nvml::success;
}

std::optional<GpmRates> GpmReader::advance()
{
    const auto now = std::chrono::steady_clock::now();
    GpmRates rates;
    rates.seconds = std::chrono::duration<double>(now - previous_time_).count();
    previous_time_ = now;
    bool complete = true;
    const auto share = 1.0 / static_cast<double>(sources_.size());
    for (auto& source : sources_) {
        if (!take(source, source.next)) {
            source.has_previous = false;
            complete = false;
            continue;
        }
        if (source.has_previous) {
            nvml::GpmMetricsGet get{};
            get.version = nvml::gpm_metrics_get_version;
            get.numMetrics = 4;
            get.sample1 = source.previous;
            get.sample2 = source.next;
            get.metrics[0].metricId = nvml::gpm_sm_util;
            get.metrics[1].metricId = nvml::gpm_sm_occupancy;
            get.metrics[2].metricId = nvml::gpm_any_tensor_util;
            get.metrics[3].metricId = nvml::gpm_dram_bw_util;
            if (nvml_->fn().gpm_metrics_get(&get) == nvml::success) {
                double* out[] = {&rates.sm_active, &rates.sm_occupancy, &rates.tensor_active, &rates.dram_bw};
                for (int m = 0; m < 4; ++m) {
                    if (get.metrics[m].nvmlReturn == nvml::success) {
                        *out[m] += share * get.metrics[m].value;
                    } else {
                        complete = false;
                    }
                }
            } else {
                complete = false;
            }
        } else {
            complete = false;  // the first sample of this device: nothing to compare with yet
        }
        std::swap(source.previous, source.next);
        source.has_previous = true;
    }
    if (!complete || rates.seconds <= 0) return std::nullopt;
    return rates;
}

}  // namespace shardrun::gpu
