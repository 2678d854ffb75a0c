#include "runner/gpu/telemetry_window.hpp"

#include <algorithm>
#include <map>

namespace shardrun::gpu {

Sample combine(const std::vector<DeviceReading>& readings)
{
    Sample sample;
    bool any_listed = false, all_energy = true;
    std::uint64_t processes = 0, energy = 0;
    for (const auto& reading : readings) {
        sample.mem_device += reading.mem_used;
        sample.util += reading.util / static_cast<double>(readings.size());
        sample.temp_c = std::max(sample.temp_c, reading.temp_c);
        any_listed = any_listed || reading.mem_processes.has_value();
        if (reading.mem_processes) processes += *reading.mem_processes;
        all_energy = all_energy && reading.energy_mj.has_value();
        if (reading.energy_mj) energy += *reading.energy_mj;
    }
    if (any_listed) sample.mem_processes = processes;
    if (all_energy) sample.energy_mj = energy;
    return sample;
}

std::string describe_xid(unsigned long long xid)
{
    // The Xids of NVIDIA's "Xid Errors" catalogue that point at the device rather than the program.
    static const std::map<unsigned long long, const char*> meanings{
        {13, "graphics engine exception"},    {31, "GPU memory page fault"},
        {43, "GPU stopped processing"},       {48, "double-bit ECC error"},
        {63, "ECC page retirement or row remapping"}, {64, "ECC page retirement or row remapper failure"},
        {74, "NVLink error"},                 {79, "GPU has fallen off the bus"},
        {92, "high single-bit ECC error rate"}, {94, "contained ECC error"},
        {95, "uncontained ECC error"},        {119, "GSP RPC timeout"},
        {120, "GSP error"}};
    const auto found = meanings.find(xid);
    return "Xid " + std::to_string(xid) + (found != meanings.end() ? std::string(" (") + found->second + ")" : "");
}

TelemetryWindow::TelemetryWindow(const Sample& first, const FaultCounters& counters, bool xids_watched)
    : start_counters_(counters), xids_watched_(xids_watched)
{
    auto start = first;
    start.gpm.reset();  // its interval ended as the task started: another task's
    add(start);
}

void TelemetryWindow::add(const Sample& sample)
{
    mem_peak_device_ = std::max(mem_peak_device_, sample.mem_device);
    processes_listed_ = processes_listed_ || sample.mem_processes.has_value();
    if (sample.mem_processes) mem_peak_processes_ = std::max(mem_peak_processes_, *sample.mem_processes);
    util_sum_ += sample.util;
    util_peak_ = std::max(util_peak_, sample.util);
    ++samples_;
    if (!sample.energy_mj) energy_known_ = false;
    if (sample.energy_mj && !energy_first_) energy_first_ = sample.energy_mj;
    if (sample.energy_mj) energy_last_ = sample.energy_mj;
    temp_max_ = std::max(temp_max_, sample.temp_c);
    if (sample.gpm) {
        gpm_seen_ = true;
        gpm_sum_.sm_active += sample.gpm->sm_active * sample.gpm->seconds;
        gpm_sum_.sm_occupancy += sample.gpm->sm_occupancy * sample.gpm->seconds;
        gpm_sum_.tensor_active += sample.gpm->tensor_active * sample.gpm->seconds;
        gpm_sum_.dram_bw += sample.gpm->dram_bw * sample.gpm->seconds;
        gpm_sum_.seconds += sample.gpm->seconds;
    } else if (samples_ > 1) {
        gpm_gap_ = true;
    }
}

void TelemetryWindow::add_xid(unsigned long long xid) { xids_.push_back(xid); }

io::TaskGpuUsage TelemetryWindow::usage() const
{
    io::TaskGpuUsage usage;
    // Per process once NVML listed one of the rank's processes in some sample (before that, the
    // task had none on the GPU yet); the device's when it never did (a container hides them).
    usage.mem_scope = processes_listed_ ? io::GpuMemScope::process : io::GpuMemScope::device;
    usage.mem_peak = static_cast<std::int64_t>(processes_listed_ ? mem_peak_processes_ : mem_peak_device_);
    usage.util_mean = samples_ > 0 ? util_sum_ / static_cast<double>(samples_) : 0.0;
    usage.util_peak = util_peak_;
    if (energy_known_ && energy_first_ && energy_last_ && *energy_last_ >= *energy_first_) {
        usage.energy_j = static_cast<double>(*energy_last_ - *energy_first_) / 1000.0;
    }
    usage.temp_max = temp_max_;
    // Means over the task, each interval weighed by its length; a task with an interval GPM missed has none.
    if (gpm_seen_ && !gpm_gap_ && gpm_sum_.seconds > 0) {
        usage.sm_active = gpm_sum_.sm_active / gpm_sum_.seconds;
        usage.sm_occupancy = gpm_sum_.sm_occupancy / gpm_sum_.seconds;
        usage.tensor_active = gpm_sum_.tensor_active / gpm_sum_.seconds;
        usage.dram_bw = gpm_sum_.dram_bw / gpm_sum_.seconds;
    }
    usage.xid_events = xids_watched_ ? static_cast<std::int32_t>(xids_.size()) : -1;
    return usage;
}

DeviceFaultEvents TelemetryWindow::faults(const FaultCounters& now) const
{
    DeviceFaultEvents events;
    events.xid_events = static_cast<int>(xids_.size());
    // A counter unknown at either end (-1) or reset (a driver reload) tells nothing.
    const auto growth = [](long long before, long long after) { return before >= 0 && after > before ? after - before : 0; };
    events.ecc_uncorrected = growth(start_counters_.ecc_uncorrected, now.ecc_uncorrected);
    events.retired_pages = growth(start_counters_.retired_pages, now.retired_pages);
    std::string detail;
    for (const auto xid : xids_) detail += (detail.empty() ? "" : ", ") + describe_xid(xid);
    if (events.ecc_uncorrected > 0) {
        detail += (detail.empty() ? "" : ", ") + std::to_string(events.ecc_uncorrected) + " new uncorrected ECC errors";
    }
    if (events.retired_pages > 0) {
        detail += (detail.empty() ? "" : ", ") + std::to_string(events.retired_pages) + " newly retired pages";
    }
    events.detail = detail;
    return events;
}

}  // namespace shardrun::gpu
