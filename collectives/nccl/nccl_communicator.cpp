#include "collectives/nccl/nccl_communicator.hpp"

#include <exception>
#include <stdexcept>
#include <string>

#include "collectives/nccl/nccl_state.hpp"

namespace shardrun::collectives::nccl {
namespace {

ncclDataType_t nccl_type(DataType type)
{
    switch (type) {
    case DataType::uint8: return ncclUint8;
    case DataType::int32: return ncclInt32;
    case DataType::uint32: return ncclUint32;
    case DataType::int64: return ncclInt64;
    case DataType::uint64: return ncclUint64;
    case DataType::float32: return ncclFloat32;
    case DataType::float64: return ncclFloat64;
    }
    throw std::invalid_argument("unknown DataType");
}

ncclRedOp_t nccl_op(ReduceOp op)
{
    switch (op) {
    case ReduceOp::sum: return ncclSum;
    case ReduceOp::min: return ncclMin;
    case ReduceOp::max: return ncclMax;
    case ReduceOp::avg: return ncclAvg;  // floats: pre-scaled by 1/size; integers: sum, then division
    }
    throw std::invalid_argument("unknown ReduceOp");
}

/** Completion of one enqueued operation: an event recorded on the stream right after it. */
class NcclPending final : public PendingOperation {
public:
    NcclPending(std::shared_ptr<State> state, const char* what) : state_(std::move(state)), what_(what)
    {
        state_->check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), what_);
        const cudaError_t recorded = cudaEventRecord(event_, state_->stream);
        if (recorded == cudaSuccess) return;
        cudaEventDestroy(event_);  // the destructor does not run when the constructor throws
        event_ = nullptr;
        state_->check(recorded, what_);
    }
    ~NcclPending() override
    {
        if (event_ != nullptr) cudaEventDestroy(event_);
    }
    NcclPending(const NcclPending&) = delete;
    NcclPending& operator=(const NcclPending&) = delete;

    bool test() override
    {
        if (!done_) done_ = state_->finished(event_, what_);
        return done_;
    }
    void wait() override
    {
        try {
            if (!poll_until([&] { return test(); }, state_->timeout)) state_->timed_out(what_);
        } catch (...) {
            // Request's destructor waits: while another error unwinds the stack (often the one
            // that aborted this communicator), a second throw would terminate the process.
            if (std::uncaught_exceptions() > 0) return;
            throw;
        }
    }

private:
    std::shared_ptr<State> state_;
    const char* what_;
    cudaEvent_t event_ = nullptr;
    bool done_ = false;
};

class NcclCommunicator final : public Communicator {
public:
    explicit NcclCommunicator(std::shared_ptr<State> state) : state_(std::move(state)) {}

    int rank() const noexcept override { return state_->rank; }
    int size() const noexcept override { return state_->size; }
    const std::shared_ptr<State>& state() const noexcept { return state_; }

    std::unique_ptr<Communicator> split(int color, int key) const override;
    void barrier() override { ibarrier().wait(); }
    Request ibarrier() override
    {
        // NCCL has no barrier: a one-element allreduce completes only once every member joined.
        return launch("barrier", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclAllReduce(state_->scratch, state_->scratch, 1, ncclInt32, ncclSum, comm, stream);
        });
    }

    void broadcast_raw(void* data, std::size_t count, DataType type, int root) override
    {
        ibroadcast_raw(data, count, type, root).wait();
    }
    Request ibroadcast_raw(void* data, std::size_t count, DataType type, int root) override
    {
        require_member(root, "broadcast root");
        return launch("broadcast", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclBroadcast(data, data, count, nccl_type(type), root, comm, stream);
        });
    }
    void allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override
    {
        iallreduce_raw(send, recv, count, type, op).wait();
    }
    Request iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override
    {
        return launch("allreduce", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclAllReduce(send, recv, count, nccl_type(type), nccl_op(op), comm, stream);
        });
    }
    void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) override
    {
        iallgather_raw(send, recv, count, type).wait();
    }
    Request iallgather_raw(const void* send, void* recv, std::size_t count, DataType type) override
    {
        return launch("allgather", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclAllGather(send, recv, count, nccl_type(type), comm, stream);
        });
    }
    void reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type, ReduceOp op) override
    {
        ireduce_scatter_raw(send, recv, recv_count, type, op).wait();
    }
    Request ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                ReduceOp op) override
    {
        return launch("reduce_scatter", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclReduceScatter(send, recv, recv_count, nccl_type(type), nccl_op(op), comm, stream);
        });
    }

    // NCCL messages carry no tag: order between one pair of ranks is what keeps them apart.
    void send_raw(const void* data, std::size_t count, DataType type, int dest, int tag) override
    {
        isend_raw(data, count, type, dest, tag).wait();
    }
    Request isend_raw(const void* data, std::size_t count, DataType type, int dest, int /*tag*/) override
    {
        require_member(dest, "send destination");
        return launch("send", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclSend(data, count, nccl_type(type), dest, comm, stream);
        });
    }
    void recv_raw(void* data, std::size_t count, DataType type, int source, int tag) override
    {
        irecv_raw(data, count, type, source, tag).wait();
    }
    Request irecv_raw(void* data, std::size_t count, DataType type, int source, int /*tag*/) override
    {
        if (source == any_source) throw std::invalid_argument("NCCL recv: NCCL has no any_source; name the sender");
        require_member(source, "recv source");
        return launch("recv", [&](ncclComm_t comm, cudaStream_t stream) {
            return ncclRecv(data, count, nccl_type(type), source, comm, stream);
        });
    }

private:
    // Checked here because NCCL's own argument errors would abort the whole communicator.
    void require_member(int rank, const char* what) const
    {
        if (rank < 0 || rank >= state_->size)
            throw std::invalid_argument(std::string("NCCL ") + what + " " + std::to_string(rank) + " is not a rank of " +
                                        state_->group());
    }

    /** Enqueues one operation on the stream and returns the request that completes with it. */
    template <typename Enqueue>
    Request launch(const char* what, Enqueue&& enqueue)
    {
        state_->require_usable(what);
        state_->check(cudaSetDevice(state_->device), what);
        state_->check(enqueue(state_->comm, state_->stream), what);
        state_->settle(what);  // non-blocking mode: wait until it is really enqueued
        return Request(std::make_unique<NcclPending>(state_, what));
    }

    std::shared_ptr<State> state_;
};

std::unique_ptr<Communicator> NcclCommunicator::split(int color, int key) const
{
    state_->require_usable("split");
    state_->check(cudaSetDevice(state_->device), "split");
    // Until the new communicator knows its place, its messages name the parent group.
    auto part = std::make_shared<State>();
    part->device = state_->device;
    part->rank = state_->rank;
    part->size = state_->size;
    part->timeout = state_->timeout;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    state_->check(ncclCommSplit(state_->comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &part->comm, &config),
                  "split");
    state_->settle("split");
    if (part->comm == nullptr) return nullptr;
    part->settle("split");  // the new communicator's own initialisation
    part->check(ncclCommUserRank(part->comm, &part->rank), "split");
    part->check(ncclCommCount(part->comm, &part->size), "split");
    part->create_resources("split");
    return std::make_unique<NcclCommunicator>(std::move(part));
}

const NcclCommunicator& as_nccl(const Communicator& comm)
{
    const auto* nccl = dynamic_cast<const NcclCommunicator*>(&comm);
    if (nccl == nullptr) throw std::invalid_argument("not an NCCL communicator");
    return *nccl;
}

}  // namespace

std::unique_ptr<Communicator> make_nccl_communicator(Communicator& host_group, int cuda_device, double timeout_seconds)
{
    if (!(timeout_seconds > 0)) throw std::invalid_argument("make_nccl_communicator: timeout_seconds must be > 0");
    auto state = std::make_shared<State>();
    state->device = cuda_device;
    state->rank = host_group.rank();
    state->size = host_group.size();
    state->timeout = timeout_seconds;
    exchange_devices(host_group, *state);
    initialise(host_group, *state, shared_unique_id(host_group, *state));
    return std::make_unique<NcclCommunicator>(std::move(state));
}

bool compiled() noexcept { return true; }

void* stream(const Communicator& comm) { return as_nccl(comm).state()->stream; }

int cuda_device(const Communicator& comm) { return as_nccl(comm).state()->device; }

void synchronize(Communicator& comm)
{
    const auto& state = as_nccl(comm).state();
    state->require_usable("synchronize");
    state->check(cudaSetDevice(state->device), "synchronize");
    NcclPending(state, "synchronize").wait();  // an event after everything enqueued so far
}

}  // namespace shardrun::collectives::nccl
