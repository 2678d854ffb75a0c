#include "collectives/nccl/nccl_state.hpp"

#include <sstream>

namespace shardrun::collectives::nccl {

std::string seconds_text(double seconds)
{
    std::ostringstream text;
    text << seconds << " s";
    return text.str();
}

std::string describe(ncclResult_t result)
{
    std::string text = ncclGetErrorString(result);
    // NCCL keeps the detail (which peer, which system call) in its last-error string.
    const char* last = ncclGetLastError(nullptr);
    if (last != nullptr && *last != '\0') text += std::string(" (") + last + ")";
    return text;
}

State::~State()
{
    if (comm != nullptr) {
        cudaSetDevice(device);
        // Finalize flushes what is still in flight with the peers; a peer that is gone would make
        // it wait forever, so it is bounded by the timeout and falls back to abort.
        ncclResult_t progress = ncclCommFinalize(comm);
        const bool flushed = (progress == ncclSuccess || progress == ncclInProgress) &&
                             poll_until(
                                 [&] {
                                     if (ncclCommGetAsyncError(comm, &progress) != ncclSuccess) progress = ncclInternalError;
                                     return progress != ncclInProgress;
                                 },
                                 timeout) &&
                             progress == ncclSuccess;
        if (flushed) {
            ncclCommDestroy(comm);
        } else {
            ncclCommAbort(comm);
        }
    }
    if (scratch != nullptr) cudaFree(scratch);
    if (stream != nullptr) cudaStreamDestroy(stream);
}

std::string State::group() const
{
    return "group (size " + std::to_string(size) + ", rank " + std::to_string(rank) + ", cuda:" +
           std::to_string(device) + ")";
}

void State::create_resources(const char* what)
{
    check(cudaSetDevice(device), what);
    // Non-blocking: the legacy default stream must not serialise NCCL with unrelated kernels.
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), what);
    check(cudaMalloc(&scratch, sizeof(std::int32_t)), what);
    check(cudaMemset(scratch, 0, sizeof(std::int32_t)), what);
}

void State::require_usable(const char* what) const
{
    if (!aborted) return;
    SHARDRUN_THROW(NcclError, std::string("NCCL ") + what + " on " + group() +
                              ": this communicator was aborted after an earlier error or timeout; create a new one");
}

void State::check(ncclResult_t result, const char* what)
{
    if (result == ncclSuccess || result == ncclInProgress) return;
    fail(what, describe(result));
}

void State::check(cudaError_t status, const char* what)
{
    if (status == cudaSuccess) return;
    fail(what, std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")");
}

void State::settle(const char* what)
{
    ncclResult_t progress = ncclInProgress;
    const bool done = poll_until(
        [&] {
            check(ncclCommGetAsyncError(comm, &progress), what);
            return progress != ncclInProgress;
        },
        timeout);
    if (!done) timed_out(what);
    check(progress, what);
}

bool State::finished(cudaEvent_t event, const char* what)
{
    require_usable(what);
    // A peer's failure shows up here, not in the event, which would simply never complete.
    ncclResult_t async = ncclSuccess;
    check(ncclCommGetAsyncError(comm, &async), what);
    check(async, what);
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaErrorNotReady) return false;
    check(status, what);
    return true;
}

void State::timed_out(const char* what)
{
    abort();
    const auto limit = seconds_text(timeout);
    SHARDRUN_THROW(NcclError, std::string("NCCL ") + what + " timed out after " + limit + " on " + group() +
                              "; ranks that did not join: unknown (no response within " + limit +
                              "); the communicator was aborted");
}

void State::abort() noexcept
{
    if (comm != nullptr) ncclCommAbort(comm);
    comm = nullptr;
    aborted = true;
}

void State::fail(const char* what, const std::string& detail)
{
    abort();
    SHARDRUN_THROW(NcclError, std::string("NCCL ") + what + " failed on " + group() + ": " + detail +
                              "; the communicator was aborted");
}

}  // namespace shardrun::collectives::nccl
