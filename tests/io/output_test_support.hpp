#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/job_output.hpp"

namespace shardrun::io::testing {

/** A fresh empty folder under /tmp. */
std::string scratch_dir();

/** energy: float64 scalar [J]; spectrum: float32 [4]; counts: int32 [2, 3]. */
std::vector<FieldSpec> test_fields();

/** Metadata of a job of `task_count` tasks, element `array_index` of `array_count` (contiguous blocks). */
JobMetadata test_metadata(std::uint64_t task_count, int array_count = 1, int array_index = 0,
                          const std::string& params_json = R"({"alpha":[0.1,0.2]})");

/** Value `k` of field `f` of task `id`: each is distinct and computable anywhere. */
double expected_value(std::uint64_t id, std::size_t f, std::size_t k);
/** The values of task `id` for `fields`, as the sink wants them. */
TaskValues test_values(std::uint64_t id, const std::vector<FieldSpec>& fields);
/** A finished record of task `id` on `rank`; failed when id % 7 == 3 with exit code 40 + id % 5. */
TaskRecord test_record(std::uint64_t id, int rank);
bool fails(std::uint64_t id);
/**
 * `record` with the /tasks/message and attempt log a runner gives it: a failed task
 * "exit code N" and `attempts` attempts (each failed with N), an ok task one attempt.
 */
TaskRecord with_reasons(TaskRecord record);

/** /params: alpha (float64 = 0.5 * id), n (int64 = id % 3), label (string "p<id>"). */
std::vector<ParamColumn> test_params(std::uint64_t task_count);

/** /ranges: start = 100 * id, end = 100 * id + 100. */
TaskRanges test_ranges(std::uint64_t task_count);

/** Reads a whole dataset of `file` as doubles (any numeric type). */
std::vector<double> read_doubles(hid_t file, const std::string& name);
/** /ranges: start = 100 * id, end = 100 * id + 100. */
TaskRanges test_ranges(std::uint64_t task_count);

/** Reads a whole dataset as int64 (integers and enums). */
std::vector<std::int64_t> read_ints(hid_t file, const std::string& name);
/** Reads a string attribute of the root group. */
std::string read_root_string(hid_t file, const std::string& name);

/**
 * Checks every row of the master at `path` against test_record/test_values: ok rows hold
 * the values, failed rows the fill value and their exit code, tasks in `pending` are pending.
 * Returns "" when everything matches, else the first mismatch.
 */
std::string check_master(const std::string& path, std::uint64_t task_count, const std::vector<std::uint64_t>& pending = {});

/**
 * Checks /tasks/message and /attempts of the master at `path` against
 * with_reasons(test_record(...)) for every task: the message of each row, and exactly its
 * attempts, sorted by task then attempt. "" when everything matches, else the first mismatch.
 */
std::string check_reasons(const std::string& path, std::uint64_t task_count);

}  // namespace shardrun::io::testing
