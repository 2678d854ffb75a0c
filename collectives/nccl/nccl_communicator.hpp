#pragma once

#include <memory>
#include <string>

#include "base/error.hpp"
#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/**
 * An NCCL or CUDA call of the NCCL backend failed or timed out, or the build has no NCCL.
 * The message names the operation, the group (size, this rank, device) and, for timeouts,
 * which ranks did not join when that could be found out.
 */
class NcclError : public Error {
public:
    NcclError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

}  // namespace shardrun::collectives

namespace shardrun::collectives::nccl {

/**
 * Builds the NCCL (device-memory) backend of Communicator over the members of `host_group`,
 * this rank on CUDA device `cuda_device`. Collective over `host_group`.
 *
 * Every buffer passed to the returned communicator is DEVICE memory on `cuda_device` (e.g.
 * kernels::DeviceBuffer). Operations run on a CUDA stream the communicator owns (see
 * stream()); a Request completes when the GPU has finished the operation, so wait() or a
 * true test() makes the result visible to the host and to any stream.
 *
 * Set-up: the members exchange their GPU's UUID through `host_group` and every member
 * refuses if two of them are on one GPU (NCCL does not support that and may hang); rank 0
 * creates the NCCL id and broadcasts it through `host_group`; then every member initialises
 * without blocking (ncclCommInitRankConfig, blocking = 0) and polls until done or
 * `timeout_seconds` have passed. On failure every member aborts and throws, and the members
 * tell each other through `host_group` who failed, so the message says which ranks did not
 * join.
 *
 * Lifetime: creating an NCCL communicator costs a CUDA context, NCCL's bootstrap and
 * buffers (hundreds of ms and MBs), so create it once per group and keep it (and the CUDA
 * context it holds) across all the tasks of a run; do not make one per task.
 *
 * Semantics beyond communicator.hpp:
 * - avg is ncclAvg (floats: pre-scaled by 1/size; integers: sum then integer division).
 * - Point-to-point ignores `tag` and does not accept any_source (NCCL has neither); messages
 *   to one peer arrive in order. All operations are serialised on the one stream, so two
 *   ranks that exchange must order their calls opposite ways (one sends first, the other
 *   receives first), or the GPU waits forever and the timeout fires.
 * - `timeout_seconds` also bounds every wait(), split() and the destructor's finalisation. A
 *   timed-out or failed operation aborts the communicator (ncclCommAbort): later calls throw.
 * - Not thread-safe: call one communicator from one thread.
 *
 * @param host_group  a host-memory (MPI) communicator over exactly the members; it is used
 *                    only during this call and need not outlive the result
 * @param cuda_device  this rank's CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
 * @param timeout_seconds  limit of the initialisation and of every later wait (> 0)
 * @throws NcclError  on any failure, timeout, two members on one GPU, or a build without NCCL
 */
std::unique_ptr<Communicator> make_nccl_communicator(Communicator& host_group, int cuda_device,
                                                     double timeout_seconds);

/** True when this build contains the NCCL backend (false: make_nccl_communicator throws). */
bool compiled() noexcept;

/**
 * The CUDA stream (a cudaStream_t, as void* so this header stays free of CUDA types) on
 * which `comm` runs its operations. Kernels that produce or consume a communicator's buffers
 * can be ordered against it without a host round trip.
 * @throws std::invalid_argument  when `comm` is not an NCCL communicator
 */
void* stream(const Communicator& comm);

/** The CUDA device ordinal `comm` runs on. @throws std::invalid_argument for another backend */
int cuda_device(const Communicator& comm);

/**
 * Waits (at most the communicator's timeout) until everything enqueued on `comm`'s stream
 * has finished. @throws NcclError on failure or timeout (the communicator is then aborted)
 */
void synchronize(Communicator& comm);

}  // namespace shardrun::collectives::nccl
