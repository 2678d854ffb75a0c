#pragma once

// @internal The NCCL backend's shared state, checks and set-up steps. Includes CUDA and NCCL
// headers: only collectives/nccl/*.cpp may include it, never a public header.
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "collectives/nccl/nccl_communicator.hpp"

namespace shardrun::collectives::nccl {

/**
 * Calls `done` until it returns true or `seconds` have passed (false then). Yields first, then
 * sleeps with a growing pause up to 1 ms: short collectives see little latency, and a long
 * wait costs no core.
 */
template <typename Done>
bool poll_until(Done&& done, double seconds)
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    auto pause = std::chrono::microseconds(0);
    while (!done()) {
        if (Clock::now() >= deadline) return false;
        if (pause.count() == 0) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(pause);
        }
        pause = std::min(std::chrono::microseconds(1000), pause * 2 + std::chrono::microseconds(1));
    }
    return true;
}

/** "30 s", "0.5 s". */
std::string seconds_text(double seconds);

/** NCCL's name for `result` and, when there is one, its last error message. */
std::string describe(ncclResult_t result);

/**
 * One NCCL communicator with its stream. Shared by the communicator and its pending requests,
 * so a request that outlives its communicator still has a valid stream and comm.
 */
struct State {
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;
    void* scratch = nullptr;  ///< one int32 on the device, the barrier's allreduce operand
    int device = 0;
    int rank = 0;
    int size = 1;
    double timeout = 0;
    bool aborted = false;

    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    /** Finalises (bounded by the timeout, else aborts) and destroys; never throws. */
    ~State();

    /** "group (size 4, rank 2, cuda:1)", for every message. */
    std::string group() const;
    /** Makes `device` current and creates the stream and scratch buffer. */
    void create_resources(const char* what);
    /** @throws NcclError when an earlier failure aborted this communicator */
    void require_usable(const char* what) const;
    /** Aborts and throws NcclError unless `result` is ncclSuccess or ncclInProgress. */
    void check(ncclResult_t result, const char* what);
    /** Aborts and throws NcclError unless `status` is cudaSuccess. */
    void check(cudaError_t status, const char* what);
    /** Polls comm until no longer ncclInProgress (non-blocking mode: until really enqueued or created). */
    void settle(const char* what);
    /** True once `event` completed; checks NCCL's asynchronous errors first. */
    bool finished(cudaEvent_t event, const char* what);
    /** Aborts and throws the timeout message. */
    [[noreturn]] void timed_out(const char* what);
    /** ncclCommAbort, once; later calls see `aborted`. */
    void abort() noexcept;

private:
    [[noreturn]] void fail(const char* what, const std::string& detail);
};

/** Every member's device, or its local error; refuses two members on one GPU. Collective. */
void exchange_devices(Communicator& host_group, State& state);

/** Rank 0's ncclGetUniqueId, broadcast through `host_group`. Collective. */
ncclUniqueId shared_unique_id(Communicator& host_group, const State& state);

/** Non-blocking NCCL init, bounded; the members agree on the outcome. Collective. */
void initialise(Communicator& host_group, State& state, const ncclUniqueId& id);

}  // namespace shardrun::collectives::nccl
