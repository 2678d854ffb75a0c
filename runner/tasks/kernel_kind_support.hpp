#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "kernels/common/device.hpp"
#include "kernels/common/errors.hpp"
#include "kernels/common/stream_order.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/errors.hpp"
#include "runner/job/job_spec.hpp"

/** What the built-in kernel task kinds share: device mapping, timing, byte buffers, error mapping. */
namespace shardrun::tasks::kernel_support {

/** The kernels' view of the rank's device binding. */
inline kernels::Device device_of(const env::DeviceBinding& binding)
{
    return binding.cuda ? kernels::Device::cuda(binding.ordinal) : kernels::Device::cpu();
}

/**
 * The task's device, whose kernels poll the run's stop flag (TaskContext::stop): a stopped
 * run's kernel throws kernels::Stopped between its steps, and run_guarded makes that a failed
 * outcome, which the loop records as interrupted (the stop is set), never as ok.
 */
inline kernels::Device device_of(const TaskContext& context)
{
    return device_of(context.device).stoppable(kernels::StopToken(context.stop));
}

/** The `seconds` result field of every built-in kernel kind: the kernel's own wall time. */
inline io::FieldSpec seconds_field() { return {"seconds", io::DType::float64, {}, "s"}; }

/**
 * Wall seconds of `call`, one kernel call on `device`: what a GPU-vs-CPU table compares, so
 * making or reading the input stays outside it. On CUDA the rank's stream (the context and the
 * backend's load) is made before the clock starts, and the kernels hand their results back to
 * the host before returning, so the time ends after the stream's synchronize.
 */
template <typename Call>
double kernel_seconds(const kernels::Device& device, Call&& call)
{
    if (device.kind == kernels::DeviceKind::cuda) kernels::compute_stream(device);
    const auto start = std::chrono::steady_clock::now();
    call();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
        SHARDRUN_THROW(JobFileError, "params." + (e.field().empty() ? std::string("?") : e.field()) + ": " + e.what());
    }
}

/**
 * A task's rows land in a [params.chunk, ...] result field, so params.chunk must hold a whole
 * data chunk; checked before anything runs rather than failing every task.
 * @param items  what a row is, for the message ("images", "rows")
 */
inline void require_whole_chunks(std::int64_t chunk, const JobView& job, std::string_view items)
{
    if (job.spec == nullptr || !job.spec->data.present || static_cast<std::uint64_t>(chunk) >= job.spec->data.chunk) {
        return;
    }
    SHARDRUN_THROW(JobFileError, fmt::format("params.chunk: {} {} per task, but data.chunk gives a task up to {}; leave "
                                             "params.chunk out (it follows data.chunk) or make it at least {}",
                                             chunk, items, job.spec->data.chunk, job.spec->data.chunk));
}

/** "[8, 16, 16] float64", how messages show a dataset. */
inline std::string dataset_text(const io::DatasetInfo& info)
{
    return fmt::format("[{}] {}", fmt::join(info.dims, ", "), info.dtype);
}

/** Runs `body` (returning TaskValues) and reports any exception as a failed outcome. */
template <typename Body>
TaskOutcome run_guarded(std::string_view kind, Body&& body)
{
    try {
        TaskOutcome outcome;
        outcome.values = body();
        return outcome;
    } catch (const kernels::Stopped& e) {
        return TaskOutcome::failure(1, e.what());  // already "<kernel>: stopped before it finished"
    } catch (const std::exception& e) {
        return TaskOutcome::failure(1, std::string(kind) + ": " + e.what());
    }
}

}  // namespace shardrun::tasks::kernel_support
