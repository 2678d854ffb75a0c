#pragma once

namespace shardrun::collectives::mpi {

/**
 * Makes a waiting rank yield its CPU when more ranks share one machine than it has CPUs.
 *
 * Open MPI spins in every wait (a blocking receive, a collective) and yields the CPU only when
 * it knows a node is oversubscribed: by its own count of ranks per host. "Hosts" that share one
 * kernel (network namespaces, containers) look like separate nodes to it, so with more ranks than
 * the machine's CPUs every waiting rank kept a CPU the ranks with work needed: 8 ranks on four
 * namespace hosts of a 2-CPU machine spent 0.8 s in the five collectives of a run's end, and 10 s
 * on 300 `true` tasks that take 3 s with yielding (issue 36, point 5). Here ranks that share a
 * kernel (the same /proc/sys/kernel/random/boot_id) are counted against the CPUs they may use; when
 * they are more, Open MPI is told to yield when idle (opal_progress_set_yield_when_idle, looked up
 * at run time: other MPI libraries, or an Open MPI without it, are left as they are). A user's own
 * OMPI_MCA_mpi_yield_when_idle is left alone. Collective over MPI_COMM_WORLD; after MPI_Init.
 * @return whether it told Open MPI to yield
 */
bool yield_when_machine_oversubscribed();

}  // namespace shardrun::collectives::mpi
