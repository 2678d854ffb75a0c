#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/common/device.hpp"
#include "kernels/common/errors.hpp"
#include "runner/errors.hpp"
#include "runner/tasks/task_kind.hpp"

/** What the built-in kernel task kinds share: device mapping, byte buffers, error mapping. */
namespace shardrun::tasks::kernel_support {

/** The kernels' view of the rank's device binding. */
inline kernels::Device device_of(const env::DeviceBinding& binding)
{
    return binding.cuda ? kernels::Device::cuda(binding.ordinal) : kernels::Device::cpu();
}

/** One scalar result field's bytes. */
template <typename T>
std::vector<std::byte> scalar_bytes(T value)
{
    std::vector<std::byte> bytes(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    return bytes;
}

/** An array result field's bytes, padded with zeros up to `elements`. */
template <typename T>
std::vector<std::byte> array_bytes(const T* data, std::size_t count, std::size_t elements)
{
    std::vector<std::byte> bytes(elements * sizeof(T), std::byte{0});
    std::memcpy(bytes.data(), data, std::min(count, elements) * sizeof(T));
    return bytes;
}

/** Runs a kernel validation, turning InvalidKernelArgument into JobFileError("params.<field>: ..."). */
template <typename Check>
void validate_params(Check&& check)
{
    try {
        check();
    } catch (const kernels::InvalidKernelArgument& e) {
        throw JobFileError("params." + (e.field().empty() ? std::string("?") : e.field()) + ": " + e.what());
    }
}

/** A failed outcome whose message is the error's one line. */
inline TaskOutcome failed(const std::string& message)
{
    TaskOutcome outcome;
    outcome.status = io::TaskStatus::failed;
    outcome.exit_code = 1;
    outcome.message = message;
    return outcome;
}

/** Runs `body` (returning TaskValues) and reports any exception as a failed outcome. */
template <typename Body>
TaskOutcome run_guarded(std::string_view kind, Body&& body)
{
    try {
        TaskOutcome outcome;
        outcome.values = body();
        return outcome;
    } catch (const std::exception& e) {
        return failed(std::string(kind) + ": " + e.what());
    }
}

}  // namespace shardrun::tasks::kernel_support
