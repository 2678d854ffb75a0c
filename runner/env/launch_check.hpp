#pragma once

#include <functional>
#include <string>

#include "runner/env/env_lookup.hpp"

namespace shardrun::env {

/**
 * Why this process cannot start MPI, found from the environment before MPI_Init, or empty.
 *
 * Today one case: a task of a Slurm job step (SLURM_STEP_ID) that srun started without PMIx
 * (no PMIX_RANK) and not through mpirun (no OMPI_COMM_WORLD_SIZE): `srun --mpi=none`, what a
 * site with MpiDefault=none gets, or `--mpi=pmi2`. Open MPI 4.1 as Debian builds it has no
 * Slurm PMI1/PMI2, so MPI_Init would end the task with its 30-line "not built with SLURM's PMI
 * support" instead.
 * @param mpi_plugins  what `srun --mpi=list` offers ("none, pmi2, pmix"), asked only when needed
 */
std::string launch_problem(const EnvLookup& env, const std::function<std::string()>& mpi_plugins);

/** `srun --mpi=list`'s plugin names, comma-separated, or empty when srun cannot say (5 s at most). */
std::string srun_mpi_plugins();

/**
 * Before MPI_Init: throws UsageError (exit 2) with launch_problem() of the process environment,
 * if any; the other tasks of the step (SLURM_PROCID > 0) exit 2 without a word.
 */
void check_launch();

}  // namespace shardrun::env
