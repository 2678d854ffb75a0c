#pragma once

#include <string>

#include "io/single/task_reasons.hpp"

namespace shardrun::io::single {

/**
 * @internal Rank 0 alone, once every rank has closed the single-layout file `file`: opens it
 * without MPI-IO and stores `reasons` (what gather_reasons() collected from one commit)
 * with the schema of a master. /tasks/message (variable-length UTF-8, created at the first
 * commit) gets each committed task's message; /attempts is rewritten a block of tasks at a
 * time, each task's earlier attempts (a resumed output's) merged with the new ones by
 * merge_attempt_logs(), so a resumed task counts its attempts on. The old group's space is
 * not reclaimed (as for host/device on a resume). Memory: one block of tasks plus `reasons`.
 * @throws Hdf5Error when the file cannot be written (disk full)
 */
void write_reasons(const std::string& file, const TaskReasons& reasons);

}  // namespace shardrun::io::single
