#pragma once

#include "runner/env/env_lookup.hpp"

namespace shardrun::env {

/**
 * True when this rank was started by Open MPI's mpirun without -q: after any rank exits
 * non-zero, mpirun then prints its "Primary job terminated normally, but 1 process returned
 * a non-zero exit code" note after our summary. Nothing a rank does removes that note while
 * keeping the exit code (measured with Open MPI 4.1: README, "Exit codes"); mpirun -q, or
 * orte_execute_quiet=1, does, and mpirun passes it to the ranks as OMPI_MCA_orte_execute_quiet.
 */
bool open_mpi_banner_follows(const EnvLookup& env = process_env());

}  // namespace shardrun::env
