#include "runner/gpu/quarantine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace shardrun::gpu {
namespace {

// cudaGetErrorName spellings: the runtime's names of errors that only failing hardware raises.
constexpr std::array<std::string_view, 5> device_error_names{
    "cudaErrorECCUncorrectable", "cudaErrorNvlinkUncorrectable", "cudaErrorHardwareStackError",
    "cudaErrorLaunchFailure", "cudaErrorExternalDevice"};

// Phrases of the driver and NVML for a GPU that is gone.
constexpr std::array<std::string_view, 2> device_lost_phrases{"fallen off the bus", "GPU is lost"};

bool word_at(std::string_view text, std::size_t at, std::size_t length)
{
    const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
    return (at == 0 || !part(text[at - 1])) && (at + length >= text.size() || !part(text[at + length]));
}

std::string plural(long long count, std::string_view one, std::string_view many)
{
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

}  // namespace

std::string device_error_in(std::string_view message)
{
    for (const auto name : device_error_names) {
        for (auto at = message.find(name); at != std::string_view::npos; at = message.find(name, at + 1)) {
            if (word_at(message, at, name.size())) return std::string(name);
        }
    }
    for (const auto phrase : device_lost_phrases) {
        if (message.find(phrase) != std::string_view::npos) return std::string(phrase);
    }
    return "";
}

std::string events_text(const DeviceFaultEvents& events)
{
    if (!events.detail.empty()) return events.detail;
    std::vector<std::string> parts;
    if (events.xid_events > 0) parts.push_back(plural(events.xid_events, "Xid event", "Xid events"));
    if (events.ecc_uncorrected > 0) parts.push_back(plural(events.ecc_uncorrected, "uncorrected ECC error", "uncorrected ECC errors"));
    if (events.retired_pages > 0) parts.push_back(plural(events.retired_pages, "retired page", "retired pages"));
    return fmt::format("{}", fmt::join(parts, ", "));
}

FaultVerdict judge_task(const TaskOnDevice& task)
{
    if (task.events.any()) {
        return {true, fmt::format("{} during a task that {}", events_text(task.events), task.failed ? "failed" : "succeeded")};
    }
    if (task.failed && task.trusted_message) {
        if (auto error = device_error_in(task.message); !error.empty()) return {true, error + ": " + task.message};
    }
    return {};
}

bool FaultLedger::record(const std::string& device, std::string evidence)
{
    auto& list = faults_[device];
    list.push_back(std::move(evidence));
    return static_cast<int>(list.size()) == limit_;
}

bool FaultLedger::quarantined(const std::string& device) const { return faults(device) >= limit_; }

int FaultLedger::faults(const std::string& device) const
{
    const auto it = faults_.find(device);
    return it == faults_.end() ? 0 : static_cast<int>(it->second.size());
}

std::vector<QuarantinedDevice> FaultLedger::quarantined_devices() const
{
    std::vector<QuarantinedDevice> out;
    for (const auto& [device, evidence] : faults_) {
        if (static_cast<int>(evidence.size()) >= limit_) out.push_back({device, evidence});
    }
    return out;
}

bool some_rank_healthy(const std::vector<bool>& rank_quarantined)
{
    return std::any_of(rank_quarantined.begin(), rank_quarantined.end(), [](bool q) { return !q; });
}

}  // namespace shardrun::gpu
