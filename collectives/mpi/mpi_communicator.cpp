#include "collectives/mpi/mpi_communicator.hpp"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "collectives/mpi/mpi_error.hpp"

namespace shardrun::collectives::mpi {
namespace {

MPI_Datatype mpi_type(DataType type)
{
    switch (type) {
    case DataType::uint8: return MPI_UINT8_T;
    case DataType::int32: return MPI_INT32_T;
    case DataType::uint32: return MPI_UINT32_T;
    case DataType::int64: return MPI_INT64_T;
    case DataType::uint64: return MPI_UINT64_T;
    case DataType::float32: return MPI_FLOAT;
    case DataType::float64: return MPI_DOUBLE;
    }
    throw std::invalid_argument("unknown DataType");
}

// avg is a sum followed by a division on completion: MPI has no average.
MPI_Op mpi_op(ReduceOp op)
{
    switch (op) {
    case ReduceOp::sum:
    case ReduceOp::avg: return MPI_SUM;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    }
    throw std::invalid_argument("unknown ReduceOp");
}

int checked_count(std::size_t count)
{
    if (count > static_cast<std::size_t>(INT32_MAX)) throw std::invalid_argument("collective count above INT_MAX");
    return static_cast<int>(count);
}

template <typename T>
void divide(void* data, std::size_t count, int by)
{
    auto* values = static_cast<T*>(data);
    for (std::size_t i = 0; i < count; ++i) values[i] = static_cast<T>(values[i] / static_cast<T>(by));
}

void divide_by(void* data, std::size_t count, DataType type, int by)
{
    switch (type) {
    case DataType::uint8: divide<std::uint8_t>(data, count, by); break;
    case DataType::int32: divide<std::int32_t>(data, count, by); break;
    case DataType::uint32: divide<std::uint32_t>(data, count, by); break;
    case DataType::int64: divide<std::int64_t>(data, count, by); break;
    case DataType::uint64: divide<std::uint64_t>(data, count, by); break;
    case DataType::float32: divide<float>(data, count, by); break;
    case DataType::float64: divide<double>(data, count, by); break;
    }
}

/** One MPI_Request, plus the division an avg needs once it completes. */
class MpiPending final : public PendingOperation {
public:
    MpiPending(MPI_Request request, void* avg_data = nullptr, std::size_t avg_count = 0, DataType type = DataType::uint8,
               int size = 1)
        : request_(request), avg_data_(avg_data), avg_count_(avg_count), type_(type), size_(size) {}

    /** A point-to-point message's request, which MPI_Request_free may release unwaited. */
    static std::unique_ptr<MpiPending> message(MPI_Request request)
    {
        auto pending = std::make_unique<MpiPending>(request);
        pending->point_to_point_ = true;
        return pending;
    }

    bool test() override
    {
        int done = 0;
        SHARDRUN_MPI_CHECK(MPI_Test(&request_, &done, MPI_STATUS_IGNORE));
        if (done) finish();
        return done != 0;
    }
    void wait() override
    {
        SHARDRUN_MPI_CHECK(MPI_Wait(&request_, MPI_STATUS_IGNORE));
        finish();
    }
    bool release_unwaited() noexcept override
    {
        // Freeing a collective's request is erroneous in MPI; a message's is allowed.
        return point_to_point_ && MPI_Request_free(&request_) == MPI_SUCCESS;
    }

private:
    void finish()
    {
        if (avg_data_ != nullptr) divide_by(avg_data_, avg_count_, type_, size_);
        avg_data_ = nullptr;
    }

    MPI_Request request_;
    void* avg_data_;
    std::size_t avg_count_;
    DataType type_;
    int size_;
    bool point_to_point_ = false;
};

Request pending(MPI_Request request) { return Request(std::make_unique<MpiPending>(request)); }

const void* in_place(const void* send, const void* recv) { return send == recv ? MPI_IN_PLACE : send; }

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : comm_(comm)
{
    SHARDRUN_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
    SHARDRUN_MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

MpiCommunicator::~MpiCommunicator()
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
}

std::unique_ptr<Communicator> MpiCommunicator::split(int color, int key) const
{
    MPI_Comm part = MPI_COMM_NULL;
    SHARDRUN_MPI_CHECK(MPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &part));
    if (part == MPI_COMM_NULL) return nullptr;
    return std::make_unique<MpiCommunicator>(part);
}

void MpiCommunicator::barrier() { SHARDRUN_MPI_CHECK(MPI_Barrier(comm_)); }

Request MpiCommunicator::ibarrier()
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Ibarrier(comm_, &request));
    return pending(request);
}

void MpiCommunicator::broadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    SHARDRUN_MPI_CHECK(MPI_Bcast(data, checked_count(count), mpi_type(type), root, comm_));
}

Request MpiCommunicator::ibroadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Ibcast(data, checked_count(count), mpi_type(type), root, comm_, &request));
    return pending(request);
}

void MpiCommunicator::allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    SHARDRUN_MPI_CHECK(MPI_Allreduce(in_place(send, recv), recv, checked_count(count), mpi_type(type), mpi_op(op), comm_));
    if (op == ReduceOp::avg) divide_by(recv, count, type, size_);
}

Request MpiCommunicator::iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Iallreduce(in_place(send, recv), recv, checked_count(count), mpi_type(type), mpi_op(op),
                                      comm_, &request));
    if (op != ReduceOp::avg) return pending(request);
    return Request(std::make_unique<MpiPending>(request, recv, count, type, size_));
}

void MpiCommunicator::allgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    const auto n = checked_count(count);
    SHARDRUN_MPI_CHECK(MPI_Allgather(send, n, mpi_type(type), recv, n, mpi_type(type), comm_));
}

Request MpiCommunicator::iallgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    const auto n = checked_count(count);
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Iallgather(send, n, mpi_type(type), recv, n, mpi_type(type), comm_, &request));
    return pending(request);
}

void MpiCommunicator::reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                         ReduceOp op)
{
    SHARDRUN_MPI_CHECK(MPI_Reduce_scatter_block(send, recv, checked_count(recv_count), mpi_type(type), mpi_op(op), comm_));
    if (op == ReduceOp::avg) divide_by(recv, recv_count, type, size_);
}

Request MpiCommunicator::ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                             ReduceOp op)
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Ireduce_scatter_block(send, recv, checked_count(recv_count), mpi_type(type), mpi_op(op),
                                                 comm_, &request));
    if (op != ReduceOp::avg) return pending(request);
    return Request(std::make_unique<MpiPending>(request, recv, recv_count, type, size_));
}

void MpiCommunicator::send_raw(const void* data, std::size_t count, DataType type, int dest, int tag)
{
    SHARDRUN_MPI_CHECK(MPI_Send(data, checked_count(count), mpi_type(type), dest, tag, comm_));
}

Request MpiCommunicator::isend_raw(const void* data, std::size_t count, DataType type, int dest, int tag)
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Isend(data, checked_count(count), mpi_type(type), dest, tag, comm_, &request));
    return Request(MpiPending::message(request));
}

void MpiCommunicator::recv_raw(void* data, std::size_t count, DataType type, int source, int tag)
{
    SHARDRUN_MPI_CHECK(MPI_Recv(data, checked_count(count), mpi_type(type), source == any_source ? MPI_ANY_SOURCE : source,
                                tag, comm_, MPI_STATUS_IGNORE));
}

Request MpiCommunicator::irecv_raw(void* data, std::size_t count, DataType type, int source, int tag)
{
    MPI_Request request;
    SHARDRUN_MPI_CHECK(MPI_Irecv(data, checked_count(count), mpi_type(type),
                                 source == any_source ? MPI_ANY_SOURCE : source, tag, comm_, &request));
    return Request(MpiPending::message(request));
}

bool MpiCommunicator::iprobe(int source, int tag)
{
    int flag = 0;
    SHARDRUN_MPI_CHECK(MPI_Iprobe(source == any_source ? MPI_ANY_SOURCE : source, tag, comm_, &flag, MPI_STATUS_IGNORE));
    return flag != 0;
}

std::unique_ptr<Communicator> world()
{
    MPI_Comm copy = MPI_COMM_NULL;
    SHARDRUN_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &copy));
    return std::make_unique<MpiCommunicator>(copy);
}

std::unique_ptr<Communicator> split_by_node(const Communicator& comm)
{
    MPI_Comm node = MPI_COMM_NULL;
    SHARDRUN_MPI_CHECK(MPI_Comm_split_type(native_handle(comm), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node));
    return std::make_unique<MpiCommunicator>(node);
}

MPI_Comm native_handle(const Communicator& comm)
{
    MPI_Comm native = MPI_COMM_NULL;
    if (!comm.native_mpi_comm(&native)) throw std::invalid_argument("not an MPI communicator");
    return native;
}

bool threads_may_call_mpi()
{
    int level = 0;
    MPI_Query_thread(&level);
    return level >= MPI_THREAD_MULTIPLE;
}

void abort_job(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this satisfies [[noreturn]]
}

}  // namespace shardrun::collectives::mpi
