#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "io/gpu_usage.hpp"

namespace shardrun::io {

/** Element types a result field may have (what h5py shows as the dataset dtype). */
/**
 * `boolean` is stored as HDF5 uint8 (no enum: netCDF-C skips enums) with the attribute
 * dtype = "bool", which xarray decodes to bool; its fill value is 0 (false).
 */
enum class DType : std::uint8_t { float32, float64, int32, int64, boolean };

/** Bytes per element of `dtype`. */
std::size_t dtype_size(DType dtype) noexcept;
/** "float32", "float64", "int32", "int64", "bool". */
const char* dtype_name(DType dtype) noexcept;

/** One declared result field: /results/<name> has shape [T, shape...]. */
struct FieldSpec {
    std::string name;
    DType dtype = DType::float64;
    std::vector<std::size_t> shape;  ///< per-task shape; empty for a scalar
    std::string units;               ///< written as the dataset's `units` attribute when not empty
    /**
     * Axis 0 of `shape` is the data chunk's rows (declared `rows` in a data job): a task holds
     * end - start rows, padded with the fill value to shape[0]; the master stores the field
     * as [items, shape[1:]...] (io/task_rows/item_rows.hpp).
     */
    bool item_rows = false;
    /**
     * A parameter names the extent of axis `length_axis` (`[float64, "{epochs}"]` in the job
     * file): shape[length_axis] is the parameter's largest value over the job's tasks, a task
     * with a smaller value is padded with the fill value along that axis, and the int64 field
     * `<name>_length` (length_field_name) holds each task's own value. Empty for fixed shapes.
     */
    std::string length_param;
    std::size_t length_axis = 0;

    /** Elements per task (product of shape, 1 for a scalar). */
    std::size_t elements() const noexcept;
    /** Bytes per task. */
    std::size_t bytes() const noexcept { return elements() * dtype_size(dtype); }
};

/**
 * Writes the fill value of `spec` (NaN for floats, the minimum for ints, false for bool) `rows` times: the
 * value of a row without a result, here beside FieldSpec so that every room can pad rows.
 */
void append_fill(std::vector<std::byte>& out, const FieldSpec& spec, std::size_t rows);

/** Whether every byte of a bool field's values is 0 or 1 (what true and false are stored as). */
bool holds_only_bools(const std::vector<std::byte>& values) noexcept;

/** "<field>_length": the result field that holds each task's extent of a parameter-shaped field. */
std::string length_field_name(const std::string& field);

/** Final or provisional state of a task, as stored in /tasks/status. */
enum class TaskStatus : std::int8_t { pending = 0, ok = 1, failed = 2, skipped = 3 };
const char* task_status_name(TaskStatus status) noexcept;

/** One row of /tasks. Times are seconds since the Unix epoch (UTC). */
struct TaskRecord {
    std::uint64_t task_id = 0;
    TaskStatus status = TaskStatus::pending;
    std::int32_t attempts = 0;
    std::int32_t rank = -1;
    std::string host;
    std::string device;   ///< "cpu" or "cuda:N"
    double start = 0.0;
    double end = 0.0;
    std::int32_t exit_code = 0;
    std::string message;      ///< why it did not succeed, one line (/tasks/message); empty when ok
    std::string attempt_log;  ///< every attempt of it, as io/attempt_log.hpp encodes them (/attempts)
    TaskGpuUsage gpu;         ///< /tasks/gpu_* (NVML telemetry); unmeasured without NVML or a GPU
    /** /tasks/cpu_time: user + system CPU seconds of the task's process tree (wait4); NaN: not measured. */
    double cpu_time = std::numeric_limits<double>::quiet_NaN();
    /** /tasks/mem_peak: the largest resident set (bytes) of the task's process or a waited-for descendant; -1: not measured. */
    std::int64_t mem_peak = -1;
};

/**
 * The values of one task: one byte buffer per declared field, in FieldSpec order, each
 * exactly FieldSpec::bytes() long. Empty when the task failed.
 */
using TaskValues = std::vector<std::vector<std::byte>>;

}  // namespace shardrun::io
