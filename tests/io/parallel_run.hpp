#pragma once

#include <mpi.h>

#include <string>

#include "io/job_output.hpp"

namespace shardrun::io::testing {

/**
 * Runs a job of `task_count` tasks on every rank of MPI_COMM_WORLD the way the runner
 * does: rank 0 prepares, every rank records its interleaved share (chunks of 3 ids dealt
 * out irregularly, as a dynamic schedule would), everyone commits each round (some ranks
 * with nothing), rank 0 finalizes. Collective. Returns rank 0's summary (others: default).
 */
OutputSummary run_parallel_job(const OutputOptions& options, std::uint64_t task_count, int array_count = 1,
                               int array_index = 0);

/** A scratch folder made by rank 0 and known to every rank. Collective. */
std::string shared_scratch_dir();

}  // namespace shardrun::io::testing
