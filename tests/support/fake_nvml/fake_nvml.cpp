// A stand-in libnvidia-ml.so.1 for tests without a GPU: exactly the NVML calls shardrun makes
// (runner/gpu/nvml_library.cpp), with values scripted by the file named in
// SHARDRUN_FAKE_NVML_SCRIPT, one "key value..." per line ('#' starts a comment):
//
//   devices 4                 GPUs it reports (default 4, as the fake CUDA backend)
//   memory_used 2147483648    bytes in use on every device (default 1 GiB)
//   util 40                   GPU utilisation in % (default 50)
//   power_w 200               watts: the energy counter grows by power x time since nvmlInit (default 100)
//   temp 65                   degrees C (default 60)
//   processes self 1048576    list the calling process (a rank) with this many bytes; `none`: an
//                             empty list (a container); `foreign`: one process not of the rank
//                             (another namespace's PID, or an MPS server listed in place of its clients)
//   xid_at_poll 2 79          Xid 79 on device 0, delivered from the 2nd nvmlEventSetWait_v2 call on
//   xid_every_poll 79         Xid 79 on device 0 in every drain of the event set (a failing GPU);
//                             both Xid keys deliver only to a process that registered device 0
//   ecc_at_poll 3 5           volatile uncorrected ECC count reads 5 from the 3rd event poll on
//   init_error 9              nvmlInit_v2 returns this code (9: driver not loaded)
//   no_energy 1               nvmlDeviceGetTotalEnergyConsumption is not supported
//
// GPM (the nvmlGpm* calls, kept in their own block below):
//   gpm off                   nvmlGpmQueryDeviceSupport says the devices do not support GPM (pre-Hopper)
//   gpm_sm_active 90 3        SM activity in % per device index (the last value for the devices after;
//                             default 60); likewise gpm_sm_occupancy (30), gpm_tensor (40), gpm_dram_bw (20)
// The admission check's evidence (issue 38), per device K (installed index, as NVML numbers them):
//   throttle K 0x48           device K's clocks event reasons (a mask of nvmlClocksEventReason*
//                             bits; default 0x4, the power cap every loaded H100 shows)
//   clocks K 990 2619         device K's current SM and memory clocks in MHz (default 1980 2619,
//                             which are also the maximum clocks of every device)
//   ecc K 3                   device K's volatile uncorrected ECC count reads 3 from the start
//   retired_pending K         device K has pages waiting to be retired (needs a reset)
//   remapped_pending K        device K has a row remapping pending; remap_failed K: one failed
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "runner/gpu/nvml_api.hpp"

namespace nvml = shardrun::gpu::nvml;

namespace {

struct Script {
    unsigned devices = 4;
    unsigned long long memory_used = 1ULL << 30;
    unsigned util = 50;
    double power_w = 100;
    unsigned temp = 60;
    std::string processes = "self";
    unsigned long long process_bytes = 1ULL << 20;
    long xid_poll = -1;
    unsigned long long xid = 0;
    bool xid_every_poll = false;
    long ecc_poll = -1;
    unsigned long long ecc = 0;
    int init_error = 0;
    bool no_energy = false;
    // GPM: per-device values of the four metrics shardrun reads.
    bool gpm = true;
    std::map<unsigned, std::vector<double>> gpm_values{
        {shardrun::gpu::nvml::gpm_sm_util, {60}}, {shardrun::gpu::nvml::gpm_sm_occupancy, {30}},
        {shardrun::gpu::nvml::gpm_any_tensor_util, {40}}, {shardrun::gpu::nvml::gpm_dram_bw_util, {20}}};
};

/** Reads "gpm ..." keys; false when `key` is none of them. */
bool load_gpm_key(Script& script, const std::string& key, std::istringstream& words)
{
    static const std::map<std::string, unsigned> metrics{
        {"gpm_sm_active", shardrun::gpu::nvml::gpm_sm_util}, {"gpm_sm_occupancy", shardrun::gpu::nvml::gpm_sm_occupancy},
        {"gpm_tensor", shardrun::gpu::nvml::gpm_any_tensor_util}, {"gpm_dram_bw", shardrun::gpu::nvml::gpm_dram_bw_util}};
    if (key == "gpm") {
        std::string value;
        words >> value;
        script.gpm = value != "off" && value != "0";
        return true;
    }
    const auto found = metrics.find(key);
    if (found == metrics.end()) return false;
    std::vector<double> values;
    for (double value = 0; words >> value;) values.push_back(value);
    if (!values.empty()) script.gpm_values[found->second] = values;
    return true;
}

struct FakeDevice {
    unsigned index;
};

Script script;
FakeDevice devices[16];
std::chrono::steady_clock::time_point started;
std::atomic<long> polls{0};
std::atomic<bool> xid_delivered{false};
std::atomic<bool> watching_device0{false};  // events come only for devices a process registered
std::mutex lock;

// ---- The admission check's evidence (issue 38): clocks, throttling, ECC and pending repairs. ----

struct AdmissionEvidence {
    unsigned long long throttle = 0x4;  // nvmlClocksEventReasonSwPowerCap
    unsigned sm_mhz = 1980;
    unsigned mem_mhz = 2619;
    unsigned long long ecc = 0;
    bool retired_pending = false;
    bool remapped_pending = false;
    bool remap_failed = false;
};
AdmissionEvidence evidence[16];
constexpr unsigned max_sm_mhz = 1980;
constexpr unsigned max_mem_mhz = 2619;

/** Reads one of the admission keys; false when `key` is none of them. */
bool read_admission_key(const std::string& key, std::istringstream& words)
{
    unsigned device = 0;
    if (key != "throttle" && key != "clocks" && key != "ecc" && key != "retired_pending" && key != "remapped_pending" &&
        key != "remap_failed") {
        return false;
    }
    if (!(words >> device) || device >= 16) return true;
    auto& e = evidence[device];
    if (key == "throttle") {
        std::string mask;
        words >> mask;
        e.throttle = std::stoull(mask, nullptr, 0);
    } else if (key == "clocks") {
        words >> e.sm_mhz >> e.mem_mhz;
    } else if (key == "ecc") {
        words >> e.ecc;
    } else if (key == "retired_pending") {
        e.retired_pending = true;
    } else if (key == "remapped_pending") {
        e.remapped_pending = true;
    } else {
        e.remap_failed = true;
    }
    return true;
}

void load_script()
{
    const char* path = std::getenv("SHARDRUN_FAKE_NVML_SCRIPT");
    if (path == nullptr) return;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        line = line.substr(0, line.find('#'));
        std::istringstream words(line);
        std::string key;
        if (!(words >> key)) continue;
        if (key == "devices") words >> script.devices;
        else if (key == "memory_used") words >> script.memory_used;
        else if (key == "util") words >> script.util;
        else if (key == "power_w") words >> script.power_w;
        else if (key == "temp") words >> script.temp;
        else if (key == "processes") words >> script.processes >> script.process_bytes;
        else if (key == "xid_at_poll") words >> script.xid_poll >> script.xid;
        else if (key == "xid_every_poll") { words >> script.xid; script.xid_every_poll = true; }
        else if (key == "ecc_at_poll") words >> script.ecc_poll >> script.ecc;
        else if (key == "init_error") words >> script.init_error;
        else if (key == "no_energy") words >> script.no_energy;
        else if (load_gpm_key(script, key, words)) continue;
        else if (read_admission_key(key, words)) continue;
        else std::fprintf(stderr, "fake NVML: unknown key '%s' in %s\n", key.c_str(), path);
    }
    if (script.devices > 16) script.devices = 16;
}

FakeDevice* device_of(nvml::Device device) { return reinterpret_cast<FakeDevice*>(device); }

void copy_text(const std::string& text, char* out, unsigned int size)
{
    if (size == 0) return;
    std::snprintf(out, size, "%s", text.c_str());
}

std::string uuid_of(unsigned index) { return "GPU-fa4e0000-0000-0000-0000-00000000000" + std::to_string(index); }

}  // namespace

extern "C" {

nvml::Return nvmlInit_v2()
{
    const std::lock_guard guard(lock);
    load_script();
    for (unsigned i = 0; i < 16; ++i) devices[i].index = i;
    started = std::chrono::steady_clock::now();
    return script.init_error;
}

nvml::Return nvmlShutdown() { return nvml::success; }

const char* nvmlErrorString(nvml::Return code)
{
    switch (code) {
    case 0: return "Success";
    case 3: return "Not Supported";
    case 9: return "Driver Not Loaded";
    case 10: return "Timeout";
    default: return "Unknown Error";
    }
}

nvml::Return nvmlSystemGetDriverVersion(char* version, unsigned int size)
{
    copy_text("999.99-fake", version, size);
    return nvml::success;
}

nvml::Return nvmlDeviceGetCount_v2(unsigned int* count)
{
    *count = script.devices;
    return nvml::success;
}

nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml::Device* device)
{
    if (index >= script.devices) return 2;  // NVML_ERROR_INVALID_ARGUMENT
    *device = reinterpret_cast<nvml::Device>(&devices[index]);
    return nvml::success;
}

nvml::Return nvmlDeviceGetHandleByUUID(const char* uuid, nvml::Device* device)
{
    for (unsigned i = 0; i < script.devices; ++i) {
        if (uuid_of(i) == uuid) return nvmlDeviceGetHandleByIndex_v2(i, device);
    }
    return 6;  // NVML_ERROR_NOT_FOUND
}

nvml::Return nvmlDeviceGetName(nvml::Device device, char* name, unsigned int size)
{
    copy_text("Fake NVIDIA H100 " + std::to_string(device_of(device)->index), name, size);
    return nvml::success;
}

nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned int size)
{
    copy_text(uuid_of(device_of(device)->index), uuid, size);
    return nvml::success;
}

nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device, nvml::Memory* memory)
{
    *memory = nvml::Memory{80ULL << 30, (80ULL << 30) - script.memory_used, script.memory_used};
    return nvml::success;
}

nvml::Return nvmlDeviceGetUtilizationRates(nvml::Device, nvml::Utilization* rates)
{
    *rates = nvml::Utilization{script.util, script.util / 2};
    return nvml::success;
}

nvml::Return nvmlDeviceGetTemperature(nvml::Device, unsigned int sensor, unsigned int* temperature)
{
    if (sensor != nvml::temperature_gpu) return 2;
    *temperature = script.temp;
    return nvml::success;
}

nvml::Return nvmlDeviceGetTotalEnergyConsumption(nvml::Device, unsigned long long* energy)
{
    if (script.no_energy) return nvml::error_not_supported;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    *energy = static_cast<unsigned long long>(script.power_w * seconds * 1000.0);  // mJ
    return nvml::success;
}

nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device, unsigned int* count, nvml::ProcessInfo* infos)
{
    if (script.processes == "none") {
        *count = 0;
        return nvml::success;
    }
    if (*count < 1) {
        *count = 1;
        return nvml::error_insufficient_size;
    }
    const unsigned pid = script.processes == "self" ? static_cast<unsigned>(::getpid()) : 4000000U;
    infos[0] = nvml::ProcessInfo{pid, script.process_bytes, 0xFFFFFFFFU, 0xFFFFFFFFU};
    *count = 1;
    return nvml::success;
}

nvml::Return nvmlDeviceGetTotalEccErrors(nvml::Device device, int type, int counter, unsigned long long* count)
{
    if (type != nvml::memory_error_uncorrected || counter != nvml::volatile_ecc) return 2;
    const bool grown = script.ecc_poll >= 0 && polls.load() >= script.ecc_poll && device_of(device)->index == 0;
    *count = (grown ? script.ecc : 0) + evidence[device_of(device)->index].ecc;
    return nvml::success;
}

nvml::Return nvmlDeviceGetRetiredPages(nvml::Device, int, unsigned int*, unsigned long long*)
{
    return nvml::error_not_supported;  // as on an H100 (row remapping instead)
}

nvml::Return nvmlEventSetCreate(nvml::EventSet* set)
{
    static int one_set;
    *set = reinterpret_cast<nvml::EventSet>(&one_set);
    return nvml::success;
}

nvml::Return nvmlDeviceRegisterEvents(nvml::Device device, unsigned long long types, nvml::EventSet)
{
    if ((types & ~nvml::event_xid_critical) != 0) return nvml::error_not_supported;
    if (device_of(device)->index == 0) watching_device0 = true;
    return nvml::success;
}

nvml::Return nvmlEventSetWait_v2(nvml::EventSet, nvml::EventData* data, unsigned int)
{
    const long poll = ++polls;
    // Every other call: a caller drains events until the wait times out, so each drain finds one.
    const bool due = (script.xid_every_poll && poll % 2 == 1) ||
                     (script.xid_poll >= 0 && poll >= script.xid_poll && !xid_delivered.exchange(true));
    if (watching_device0 && due) {
        *data = nvml::EventData{reinterpret_cast<nvml::Device>(&devices[0]), nvml::event_xid_critical, script.xid,
                                0xFFFFFFFFU, 0xFFFFFFFFU};
        return nvml::success;
    }
    return nvml::error_timeout;
}

nvml::Return nvmlEventSetFree(nvml::EventSet) { return nvml::success; }

// ---- GPM: a sample remembers its device; the metrics between two samples are the script's values.

struct FakeGpmSample {
    int device = -1;
};

nvml::Return nvmlGpmQueryDeviceSupport(nvml::Device, nvml::GpmSupport* support)
{
    if (support->version != nvml::gpm_support_version) return 2;
    support->isSupportedDevice = script.gpm ? 1 : 0;
    return nvml::success;
}

nvml::Return nvmlGpmSampleAlloc(nvml::GpmSample* sample)
{
    *sample = reinterpret_cast<nvml::GpmSample>(new FakeGpmSample());
    return nvml::success;
}

nvml::Return nvmlGpmSampleFree(nvml::GpmSample sample)
{
    delete reinterpret_cast<FakeGpmSample*>(sample);
    return nvml::success;
}

nvml::Return nvmlGpmSampleGet(nvml::Device device, nvml::GpmSample sample)
{
    if (!script.gpm) return nvml::error_not_supported;
    reinterpret_cast<FakeGpmSample*>(sample)->device = static_cast<int>(device_of(device)->index);
    return nvml::success;
}

nvml::Return nvmlGpmMigSampleGet(nvml::Device device, unsigned int, nvml::GpmSample sample)
{
    return nvmlGpmSampleGet(device, sample);
}

nvml::Return nvmlGpmMetricsGet(nvml::GpmMetricsGet* get)
{
    if (get->version != nvml::gpm_metrics_get_version || get->numMetrics > nvml::gpm_metric_max) return 2;
    const auto* first = reinterpret_cast<FakeGpmSample*>(get->sample1);
    const auto* second = reinterpret_cast<FakeGpmSample*>(get->sample2);
    if (first->device < 0 || first->device != second->device) return 2;  // NVML_ERROR_INVALID_ARGUMENT
    const auto index = static_cast<std::size_t>(second->device);
    for (unsigned m = 0; m < get->numMetrics; ++m) {
        auto& metric = get->metrics[m];
        const auto found = script.gpm_values.find(metric.metricId);
        if (found == script.gpm_values.end()) {
            metric.nvmlReturn = nvml::error_not_supported;
            continue;
        }
        metric.nvmlReturn = nvml::success;
        metric.value = found->second[std::min(index, found->second.size() - 1)];
    }
    return nvml::success;
}

// ---- The admission check's evidence (issue 38). ----

nvml::Return nvmlDeviceGetClockInfo(nvml::Device device, int type, unsigned int* mhz)
{
    const auto& e = evidence[device_of(device)->index];
    if (type != nvml::clock_sm && type != nvml::clock_mem) return 2;
    *mhz = type == nvml::clock_sm ? e.sm_mhz : e.mem_mhz;
    return nvml::success;
}

nvml::Return nvmlDeviceGetMaxClockInfo(nvml::Device, int type, unsigned int* mhz)
{
    if (type != nvml::clock_sm && type != nvml::clock_mem) return 2;
    *mhz = type == nvml::clock_sm ? max_sm_mhz : max_mem_mhz;
    return nvml::success;
}

nvml::Return nvmlDeviceGetCurrentClocksEventReasons(nvml::Device device, unsigned long long* reasons)
{
    *reasons = evidence[device_of(device)->index].throttle;
    return nvml::success;
}

nvml::Return nvmlDeviceGetRetiredPagesPendingStatus(nvml::Device device, int* pending)
{
    *pending = evidence[device_of(device)->index].retired_pending ? 1 : 0;
    return nvml::success;
}

nvml::Return nvmlDeviceGetRemappedRows(nvml::Device device, unsigned int* corrected, unsigned int* uncorrected,
                                       unsigned int* pending, unsigned int* failed)
{
    const auto& e = evidence[device_of(device)->index];
    *corrected = 0;
    *uncorrected = e.remapped_pending || e.remap_failed ? 1 : 0;
    *pending = e.remapped_pending ? 1 : 0;
    *failed = e.remap_failed ? 1 : 0;
    return nvml::success;
}

}  // extern "C"
