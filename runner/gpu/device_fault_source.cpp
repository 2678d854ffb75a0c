#include "runner/gpu/device_fault_source.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

namespace shardrun::gpu {
namespace {

std::shared_ptr<DeviceFaultSource>& installed()
{
    static std::shared_ptr<DeviceFaultSource> source;
    return source;
}

/** SHARDRUN_TEST_GPU_FAULTS: every read of a listed device's totals finds one more Xid. */
class TestFaultSource final : public DeviceFaultSource {
public:
    explicit TestFaultSource(std::map<int, long long> devices) : reads_(std::move(devices)) {}

    DeviceFaultEvents totals(int ordinal) const override
    {
        std::lock_guard lock(mutex_);
        const auto it = reads_.find(ordinal);
        if (it == reads_.end()) return {};
        DeviceFaultEvents events;
        events.xid_events = static_cast<int>(++it->second);
        events.detail = "Xid 79 (GPU has fallen off the bus), injected by SHARDRUN_TEST_GPU_FAULTS";
        return events;
    }
    std::string uuid(int ordinal) const override { return "GPU-test-" + std::to_string(ordinal); }

private:
    mutable std::mutex mutex_;
    mutable std::map<int, long long> reads_;
};

}  // namespace

void set_device_fault_source(std::shared_ptr<DeviceFaultSource> source) { installed() = std::move(source); }

std::shared_ptr<DeviceFaultSource> device_fault_source()
{
    if (installed()) return installed();
    static const auto test = test_fault_source_from_env();
    return test;
}

std::shared_ptr<DeviceFaultSource> test_fault_source_from_env()
{
    const char* text = std::getenv("SHARDRUN_TEST_GPU_FAULTS");
    if (text == nullptr || *text == '\0') return nullptr;
    std::map<int, long long> devices;
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        if (!item.empty()) devices[std::atoi(item.c_str())] = 0;
    }
    return std::make_shared<TestFaultSource>(std::move(devices));
}

}  // namespace shardrun::gpu
