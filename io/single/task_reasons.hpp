#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::single {

/**
 * @internal The variable-length part of the task rows a single-layout commit wrote: each
 * task's /tasks/message and its encoded attempt log (io/attempt_log.hpp), sorted by
 * task id. Parallel HDF5 1.10 cannot write variable-length data, so the ranks hand these to
 * rank 0, which writes them without MPI-IO (single_reasons.hpp).
 */
struct TaskReasons {
    std::vector<std::uint64_t> task_id;
    std::vector<std::string> message;
    std::vector<std::string> attempt_log;
    std::vector<TaskGpuUsage> gpu;  ///< /tasks/gpu_* (also rank 0's to write: the columns appear with the first measured row)

    std::size_t size() const noexcept { return task_id.size(); }
};

/**
 * Collective over `comm`: the task_id, message and attempt_log of every rank's `rows`, on
 * rank 0 (sorted by task id); empty on the other ranks. One MPI_Gatherv of bytes (to rank 0
 * only, which the Communicator interface does not offer: through native_comm.hpp).
 * @throws WriteError on every rank when one rank holds more than 2 GiB of them (MPI's int counts)
 */
TaskReasons gather_reasons(base::Communicator& comm, const TaskRows& rows);

}  // namespace shardrun::io::single
