// Set-up of an NCCL communicator through the host (MPI) group: who is on which GPU, the NCCL
// id, and a bounded non-blocking init whose outcome every member learns.
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "collectives/nccl/nccl_state.hpp"

namespace shardrun::collectives::nccl {
namespace {

enum Outcome : std::int32_t { joined = 0, timed_out = 1, failed = 2 };

std::string host_name()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string join(const std::vector<int>& ranks)
{
    std::string text;
    for (const int rank : ranks) text += (text.empty() ? "" : ", ") + std::to_string(rank);
    return text;
}

std::string hex(const char* bytes, std::size_t count)
{
    static constexpr char digits[] = "0123456789abcdef";
    std::string text;
    for (std::size_t i = 0; i < count; ++i) {
        const auto byte = static_cast<unsigned char>(bytes[i]);
        text += digits[byte >> 4];
        text += digits[byte & 15];
    }
    return text;
}

void require_cuda(cudaError_t status, const char* call)
{
    if (status == cudaSuccess) return;
    cudaGetLastError();  // clear it, so this rank's later CUDA calls do not report it again
    SHARDRUN_THROW(NcclError, std::string(call) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

/**
 * This member's GPU as "gpu\t<host>\t<uuid>\t<pci bus id>", or "error\t<host>\t<message>".
 * Local failures travel to every member instead of leaving the others waiting in a collective.
 */
std::string local_record(State& state)
{
    const std::string host = host_name();
    try {
        int count = 0;
        require_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
        if (state.device < 0 || state.device >= count)
            SHARDRUN_THROW(NcclError, "cuda:" + std::to_string(state.device) + " does not exist (" +
                                          std::to_string(count) + " CUDA devices visible)");
        require_cuda(cudaSetDevice(state.device), "cudaSetDevice");
        cudaDeviceProp prop{};
        require_cuda(cudaGetDeviceProperties(&prop, state.device), "cudaGetDeviceProperties");
        char bus[32] = {};
        require_cuda(cudaDeviceGetPCIBusId(bus, sizeof bus, state.device), "cudaDeviceGetPCIBusId");
        require_cuda(cudaStreamCreateWithFlags(&state.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        require_cuda(cudaMalloc(&state.scratch, sizeof(std::int32_t)), "cudaMalloc");
        require_cuda(cudaMemset(state.scratch, 0, sizeof(std::int32_t)), "cudaMemset");
        // The UUID, not the ordinal: ordinals are per process (CUDA_VISIBLE_DEVICES) and per host.
        return "gpu\t" + host + "\t" + hex(prop.uuid.bytes, sizeof prop.uuid.bytes) + "\t" + bus;
    } catch (const std::runtime_error& error) {
        return "error\t" + host + "\t" + error.what();
    }
}

std::vector<std::string> fields(const std::string& record)
{
    std::vector<std::string> parts;
    std::istringstream in(record);
    for (std::string part; std::getline(in, part, '\t');) parts.push_back(part);
    parts.resize(4);
    return parts;
}

/** The outcome of this member's init; `error` says why when not joined. */
Outcome try_init(State& state, const ncclUniqueId& id, std::string& error)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // a member that never arrives must not hang this one past the deadline
    ncclUniqueId copy = id;
    ncclResult_t progress = ncclCommInitRankConfig(&state.comm, state.size, copy, state.rank, &config);
    if (progress != ncclSuccess && progress != ncclInProgress) {
        error = describe(progress);
        return failed;
    }
    const bool settled = poll_until(
        [&] {
            const ncclResult_t query = ncclCommGetAsyncError(state.comm, &progress);
            if (query != ncclSuccess) progress = query;
            return progress != ncclInProgress;
        },
        state.timeout);
    if (!settled) return timed_out;
    if (progress == ncclSuccess) return joined;
    error = describe(progress);
    return failed;
}

std::string init_failure(const State& state, const std::vector<std::int32_t>& outcomes, const std::string& error)
{
    std::vector<int> absent, errors, late;
    for (int rank = 0; rank < static_cast<int>(outcomes.size()); ++rank) {
        if (outcomes[rank] == joined) continue;
        absent.push_back(rank);
        (outcomes[rank] == timed_out ? late : errors).push_back(rank);
    }
    std::string text = "NCCL init failed on " + state.group() + ": ranks that did not join: " + join(absent) + " (";
    if (!errors.empty()) text += "failed: " + join(errors) + (late.empty() ? "" : "; ");
    if (!late.empty()) text += "timed out after " + seconds_text(state.timeout) + ": " + join(late);
    text += ")";
    if (late.size() == outcomes.size())
        text += "; every member reached the init, but NCCL did not connect them: NCCL_DEBUG=INFO says why "
                "(e.g. a network interface to exclude with NCCL_SOCKET_IFNAME)";
    if (!error.empty()) text += "; this rank: " + error;
    return text + "; every member aborted its communicator";
}

}  // namespace

void exchange_devices(Communicator& host_group, State& state)
{
    const auto records = allgather_strings(host_group, local_record(state));
    std::string failures;
    std::map<std::string, std::vector<int>> ranks_by_gpu;
    std::map<std::string, std::string> where;
    for (int rank = 0; rank < static_cast<int>(records.size()); ++rank) {
        const auto parts = fields(records[rank]);
        if (parts[0] == "gpu") {
            ranks_by_gpu[parts[2]].push_back(rank);
            where[parts[2]] = "host " + parts[1] + ", PCI " + parts[3];
        } else {
            failures += "; rank " + std::to_string(rank) + " (host " + parts[1] + "): " + parts[2];
        }
    }
    if (!failures.empty()) SHARDRUN_THROW(NcclError, "NCCL setup failed on " + state.group() + ": " + failures.substr(2));
    for (const auto& [uuid, ranks] : ranks_by_gpu) {
        if (ranks.size() < 2) continue;
        SHARDRUN_THROW(NcclError, "NCCL setup refused on " + state.group() + ": ranks " + join(ranks) + " are on the same GPU (" +
                                  where[uuid] + "); NCCL does not support two ranks of one communicator on one GPU (it may "
                                  "hang): give each member of the group its own GPU");
    }
}

ncclUniqueId shared_unique_id(Communicator& host_group, const State& state)
{
    // A flag byte ahead of the id, so a failure on rank 0 reaches every member instead of a hang.
    std::vector<std::uint8_t> message(1 + sizeof(ncclUniqueId), 0);
    std::string error;
    if (state.rank == 0) {
        ncclUniqueId id{};
        const ncclResult_t result = ncclGetUniqueId(&id);
        if (result == ncclSuccess) {
            message[0] = 1;
            std::memcpy(message.data() + 1, &id, sizeof id);
        } else {
            error = ": " + describe(result);
        }
    }
    host_group.broadcast(std::span<std::uint8_t>(message), 0);
    if (message[0] != 1)
        SHARDRUN_THROW(NcclError, "NCCL setup failed on " + state.group() + ": rank 0 could not create the NCCL id (ncclGetUniqueId)" +
                                  error);
    ncclUniqueId id{};
    std::memcpy(&id, message.data() + 1, sizeof id);
    return id;
}

void initialise(Communicator& host_group, State& state, const ncclUniqueId& id)
{
    std::string error;
    // Every member says how its init ended, so all keep or all abort, and the message names who
    // did not join. The exchange is bounded too: a member stuck elsewhere must not hang the rest.
    struct Exchange {
        std::int32_t mine = joined;
        std::vector<std::int32_t> all;
        Request request;
    };
    auto exchange = std::make_unique<Exchange>();
    exchange->mine = try_init(state, id, error);
    exchange->all.resize(static_cast<std::size_t>(state.size));
    exchange->request = host_group.iallgather(std::span<const std::int32_t>(&exchange->mine, 1),
                                              std::span<std::int32_t>(exchange->all));
    if (!poll_until([&] { return exchange->request.test(); }, state.timeout)) {
        // Leaked on purpose: the host library still owns these buffers, and destroying an
        // unfinished Request would wait for it forever.
        static_cast<void>(exchange.release());
        state.abort();
        SHARDRUN_THROW(NcclError, "NCCL init failed on " + state.group() + ": ranks that did not join: unknown (no response within " +
                                  seconds_text(state.timeout) + ")" + (error.empty() ? "" : "; this rank: " + error) +
                                  "; the communicator was aborted");
    }
    for (const auto outcome : exchange->all) {
        if (outcome == joined) continue;
        state.abort();
        SHARDRUN_THROW(NcclError, init_failure(state, exchange->all, error));
    }
}

}  // namespace shardrun::collectives::nccl
