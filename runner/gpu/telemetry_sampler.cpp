#include "runner/gpu/telemetry_sampler.hpp"

#include <algorithm>

#include <unistd.h>

#include <fstream>
#include <sstream>

namespace shardrun::gpu {
namespace {

/** The parent of `pid` from /proc/<pid>/stat; 0 when it cannot be read. */
pid_t parent_of(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    return parent;
}

/** Whether `pid` is this process or one of its descendants (a task it spawned, that task's children). */
bool is_ours(pid_t pid)
{
    const pid_t self = ::getpid();
    for (int depth = 0; depth < 64 && pid > 1; ++depth) {
        if (pid == self) return true;
        pid = parent_of(pid);
    }
    return false;
}

}  // namespace

TelemetrySampler::TelemetrySampler(std::shared_ptr<NvmlLibrary> nvml, std::vector<nvml::Device> devices,
                                   double interval_seconds)
    : nvml_(std::move(nvml)), devices_(std::move(devices)), interval_(interval_seconds)
{
    const auto& fn = nvml_->fn();
    if (fn.event_set_create != nullptr && fn.event_set_create(&events_) == nvml::success) {
        for (auto* device : devices_) {
            // A device that cannot report Xids (a MIG instance, an old board) leaves them unwatched.
            if (fn.register_events(device, nvml::event_xid_critical, events_) != nvml::success) {
                fn.event_set_free(events_);
                events_ = nullptr;
                break;
            }
        }
    } else {
        events_ = nullptr;
    }
    gpm_ = GpmReader::open(nvml_, devices_, gpm_why_not_);
    if (gpm_) gpm_->advance();  // the first sample: each later one closes an interval
    thread_ = std::thread([this] { run(); });
}

TelemetrySampler::~TelemetrySampler()
{
    {
        const std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
    if (events_ != nullptr) nvml_->fn().event_set_free(events_);
}

void TelemetrySampler::run()
{
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
        // Only while a task runs: an idle rank's GPU is no task's.
        if (!windows_.empty()) sample_locked();
    }
}

DeviceReading TelemetrySampler::read_device(nvml::Device device) const
{
    const auto& fn = nvml_->fn();
    DeviceReading reading;
    nvml::Memory memory{};
    if (fn.memory(device, &memory) == nvml::success) reading.mem_used = memory.used;
    nvml::Utilization rates{};
    if (fn.utilization(device, &rates) == nvml::success) reading.util = rates.gpu;
    unsigned int temperature = 0;
    if (fn.temperature(device, nvml::temperature_gpu, &temperature) == nvml::success) reading.temp_c = temperature;
    unsigned long long energy = 0;
    if (fn.energy(device, &energy) == nvml::success) reading.energy_mj = energy;
    if (fn.processes == nullptr) return reading;
    std::vector<nvml::ProcessInfo> processes(64);
    auto count = static_cast<unsigned int>(processes.size());
    auto code = fn.processes(device, &count, processes.data());
    if (code == nvml::error_insufficient_size) {
        processes.resize(count + 16);
        count = static_cast<unsigned int>(processes.size());
        code = fn.processes(device, &count, processes.data());
    }
    if (code != nvml::success) return reading;
    // Only a list that names one of this rank's processes attributes memory. An empty list (a
    // container's PID namespace), or one of others only (the MPS server in place of its clients),
    // says nothing about the task: its memory is then read device-wide.
    bool listed = false;
    std::uint64_t ours = 0;
    for (unsigned int i = 0; i < count; ++i) {
        if (!is_ours(static_cast<pid_t>(processes[i].pid))) continue;
        listed = true;
        ours += processes[i].usedGpuMemory;
    }
    if (listed) reading.mem_processes = ours;
    return reading;
}

Sample TelemetrySampler::read_sample() const
{
    std::vector<DeviceReading> readings;
    for (auto* device : devices_) readings.push_back(read_device(device));
    return combine(readings);
}

FaultCounters TelemetrySampler::read_counters() const
{
    const auto& fn = nvml_->fn();
    FaultCounters counters{0, 0};
    for (auto* device : devices_) {
        unsigned long long ecc = 0;
        if (counters.ecc_uncorrected >= 0 && fn.ecc != nullptr &&
            fn.ecc(device, nvml::memory_error_uncorrected, nvml::volatile_ecc, &ecc) == nvml::success) {
            counters.ecc_uncorrected += static_cast<long long>(ecc);
        } else {
            counters.ecc_uncorrected = -1;  // no ECC (a consumer board) or no such call
        }
        for (const int cause : {nvml::retirement_multiple_single_bit, nvml::retirement_double_bit}) {
            unsigned int pages = 0;  // asking with no room returns the count
            const auto code = fn.retired_pages != nullptr ? fn.retired_pages(device, cause, &pages, nullptr) : -1;
            if (counters.retired_pages >= 0 && (code == nvml::success || code == nvml::error_insufficient_size)) {
                counters.retired_pages += pages;
            } else {
                counters.retired_pages = -1;  // row remapping instead (A100, H100), or no such call
            }
        }
    }
    return counters;
}

std::vector<unsigned long long> TelemetrySampler::drain_xids_locked()
{
    std::vector<unsigned long long> xids;
    if (events_ != nullptr) {
        nvml::EventData event{};
        while (nvml_->fn().event_set_wait(events_, &event, 0) == nvml::success) {
            if (event.eventType == nvml::event_xid_critical) xids.push_back(event.eventData);
        }
    }
    xid_total_ += static_cast<int>(xids.size());
    if (!xids.empty()) last_xid_ = xids.back();
    // An Xid between tasks goes to the next task: the device's failing, not the task's, but quarantine must see it.
    if (windows_.empty()) pending_xids_.insert(pending_xids_.end(), xids.begin(), xids.end());
    for (auto& entry : windows_) {
        for (const auto xid : xids) entry.second.add_xid(xid);
    }
    return xids;
}

Sample TelemetrySampler::sample_locked()
{
    auto sample = read_sample();
    if (gpm_) sample.gpm = gpm_->advance();
    drain_xids_locked();
    for (auto& entry : windows_) entry.second.add(sample);
    return sample;
}

DeviceFaultEvents TelemetrySampler::fault_totals()
{
    const auto counters = read_counters();
    const std::lock_guard lock(mutex_);
    drain_xids_locked();
    DeviceFaultEvents totals;
    totals.xid_events = xid_total_;
    totals.ecc_uncorrected = std::max(0LL, counters.ecc_uncorrected);
    totals.retired_pages = std::max(0LL, counters.retired_pages);
    if (xid_total_ > 0) totals.detail = describe_xid(last_xid_);
    return totals;
}

std::string TelemetrySampler::uuid() const
{
    if (devices_.empty() || nvml_->fn().uuid == nullptr) return "";
    char text[96] = {};
    if (nvml_->fn().uuid(devices_.front(), text, sizeof text) != nvml::success) return "";
    return text;
}

TelemetrySampler::WindowId TelemetrySampler::open()
{
    const auto counters = read_counters();
    const std::lock_guard lock(mutex_);
    const auto sample = sample_locked();
    const auto id = next_++;
    auto& window = windows_.emplace(id, TelemetryWindow(sample, counters, events_ != nullptr)).first->second;
    for (const auto xid : pending_xids_) window.add_xid(xid);
    pending_xids_.clear();
    return id;
}

TaskTelemetry TelemetrySampler::close(WindowId window)
{
    const std::lock_guard lock(mutex_);
    sample_locked();
    const auto found = windows_.find(window);
    if (found == windows_.end()) return {};
    TaskTelemetry out{found->second.usage(), found->second.faults(read_counters())};
    windows_.erase(found);
    return out;
}

RankTelemetry start_rank_telemetry(const env::DeviceBinding& binding, double interval_seconds)
{
    RankTelemetry telemetry;
    if (interval_seconds <= 0) {
        telemetry.why_not = "telemetry_interval: off";
        return telemetry;
    }
    if (!binding.cuda) {
        telemetry.why_not = "the rank has no GPU (" + binding.reason + ")";
        return telemetry;
    }
    auto nvml = NvmlLibrary::open(telemetry.why_not);
    if (!nvml) return telemetry;
    auto devices = nvml->devices_of(binding.visible_id, telemetry.why_not);
    if (devices.empty()) return telemetry;
    telemetry.sampler = std::make_unique<TelemetrySampler>(std::move(nvml), std::move(devices), interval_seconds);
    return telemetry;
}

}  // namespace shardrun::gpu
