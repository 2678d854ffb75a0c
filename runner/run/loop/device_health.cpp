#include "runner/run/loop/device_health.hpp"

#include <fmt/format.h>

namespace shardrun::run {

DeviceHealth::DeviceHealth(const env::DeviceBinding& rank_device, const std::string& host, int limit,
                           std::shared_ptr<gpu::DeviceFaultSource> source, bool trusted_messages)
    : source_(std::move(source)), trusted_messages_(trusted_messages), ledger_(limit)
{
    const auto uuid = source_ != nullptr && rank_device.cuda ? source_->uuid(rank_device.ordinal) : std::string();
    name_ = fmt::format("GPU {} ({}CUDA_VISIBLE_DEVICES {}) on {}", rank_device.label(),
                        uuid.empty() ? std::string("UUID unknown, ") : "UUID " + uuid + ", ", rank_device.visible_id, host);
}

gpu::DeviceFaultEvents DeviceHealth::totals(const env::DeviceBinding& device) const
{
    gpu::DeviceFaultEvents sum;
    if (source_ == nullptr || !device.cuda) return sum;
    for (int i = 0; i < device.count; ++i) {
        const auto one = source_->totals(device.ordinal + i);
        sum.xid_events += one.xid_events;
        sum.ecc_uncorrected += one.ecc_uncorrected;
        sum.retired_pages += one.retired_pages;
        if (!one.detail.empty()) sum.detail = one.detail;
    }
    return sum;
}

gpu::DeviceFaultEvents DeviceHealth::before(const env::DeviceBinding& device) const { return totals(device); }

std::string DeviceHealth::after(const env::DeviceBinding& device, const gpu::DeviceFaultEvents& before,
                                const tasks::TaskOutcome& outcome)
{
    if (!device.cuda) return "";  // a task device: auto sent to the CPU says nothing about the GPU
    const auto now = totals(device);
    gpu::TaskOnDevice task;
    task.failed = outcome.status != io::TaskStatus::ok;
    task.trusted_message = trusted_messages_;
    task.message = outcome.message;
    task.events.xid_events = now.xid_events - before.xid_events;
    task.events.ecc_uncorrected = now.ecc_uncorrected - before.ecc_uncorrected;
    task.events.retired_pages = now.retired_pages - before.retired_pages;
    if (task.events.any()) task.events.detail = now.detail;
    const auto verdict = gpu::judge_task(task);
    if (!verdict.fault) return "";
    std::lock_guard lock(mutex_);
    if (ledger_.record("gpu", verdict.evidence)) quarantined_.store(true);
    return verdict.evidence;
}

void DeviceHealth::refuse(std::string line)
{
    std::lock_guard lock(mutex_);
    refused_ = std::move(line);
    quarantined_.store(true);
}

std::string DeviceHealth::quarantine_line() const
{
    std::lock_guard lock(mutex_);
    if (!refused_.empty()) return refused_;
    const auto devices = ledger_.quarantined_devices();
    if (devices.empty()) return "";
    const auto& evidence = devices.front().evidence;
    // Alike faults once, with their count: a dying GPU tends to repeat itself.
    std::vector<std::string> distinct;
    for (std::size_t i = 0; i < evidence.size();) {
        std::size_t same = 1;
        while (i + same < evidence.size() && evidence[i + same] == evidence[i]) ++same;
        distinct.push_back(same == 1 ? evidence[i] : fmt::format("{} (x{})", evidence[i], same));
        i += same;
    }
    return fmt::format("quarantined {} after {} device fault{} (gpu_fault_limit: {}): {}", name_, evidence.size(),
                       evidence.size() == 1 ? "" : "s", ledger_.limit(), fmt::join(distinct, "; "));
}

}  // namespace shardrun::run
