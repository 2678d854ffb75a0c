#pragma once

#include <memory>

#include "io/input/item_ids.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "runner/core/task_kind.hpp"
#include "runner/job/job_spec.hpp"
#include "runner/job/task_space.hpp"

namespace shardrun::run {

/** A job file loaded, validated against its task kind, with its task space. No MPI, no output touched. */
struct PreparedJob {
    job::JobSpec spec;
    std::unique_ptr<tasks::TaskKind> kind;
    std::uint64_t items = 0;               ///< data items (from data.items or the input dataset)
    std::vector<io::FieldSpec> fields;     ///< result fields every task writes
    std::unique_ptr<job::TaskSpace> space;
    /** Resolved jobs this one extends, oldest first (run/sweep_extension.hpp); empty otherwise. */
    std::vector<std::string> earlier_jobs;
    /** data.id's value of every input record (data_input.hpp); nullptr without data.id. */
    std::shared_ptr<const io::ItemIds> item_ids;

    std::uint64_t task_count() const noexcept { return space->size(); }
};

/** What prepare_job() does with a data.input in object storage. */
enum class InputAccess {
    stage,     ///< `run`: download it once per node into the scratch folder; the ranks read that copy
    describe,  ///< `plan`, `submit`: read its shape by ranged reads; nothing downloaded or written
};

/**
 * Loads `file` with `overrides`, checks every sweep point's parameters with the task kind
 * (the first 100000 points of larger sweeps) and that all points declare the same fields.
 * @throws JobFileError naming the file, the field and the sweep point
 */
PreparedJob prepare_job(const std::string& file, const std::vector<std::string>& overrides,
                        const std::string& job_dir = {}, InputAccess input_access = InputAccess::stage);

}  // namespace shardrun::run
