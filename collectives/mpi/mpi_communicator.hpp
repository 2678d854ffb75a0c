#pragma once

#include <mpi.h>

#include <memory>

#include "collectives/communicator.hpp"

namespace shardrun::collectives::mpi {

/** The MPI backend of Communicator: host memory, every call checked (MpiError). */
class MpiCommunicator final : public Communicator {
public:
    /** Takes `comm` (a split, dup or node communicator of its own): it is freed on destruction. */
    explicit MpiCommunicator(MPI_Comm comm);
    ~MpiCommunicator() override;
    MpiCommunicator(const MpiCommunicator&) = delete;
    MpiCommunicator& operator=(const MpiCommunicator&) = delete;

    int rank() const noexcept override { return rank_; }
    int size() const noexcept override { return size_; }
    bool native_mpi_comm(void* out) const noexcept override
    {
        *static_cast<MPI_Comm*>(out) = comm_;
        return true;
    }

    std::unique_ptr<Communicator> split(int color, int key) const override;
    void barrier() override;
    Request ibarrier() override;
    void broadcast_raw(void* data, std::size_t count, DataType type, int root) override;
    Request ibroadcast_raw(void* data, std::size_t count, DataType type, int root) override;
    void allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;
    Request iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;
    void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) override;
    Request iallgather_raw(const void* send, void* recv, std::size_t count, DataType type) override;
    void reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type, ReduceOp op) override;
    Request ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                ReduceOp op) override;
    void send_raw(const void* data, std::size_t count, DataType type, int dest, int tag) override;
    Request isend_raw(const void* data, std::size_t count, DataType type, int dest, int tag) override;
    void recv_raw(void* data, std::size_t count, DataType type, int source, int tag) override;
    Request irecv_raw(void* data, std::size_t count, DataType type, int source, int tag) override;
    bool iprobe(int source, int tag) override;

private:
    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
};

/**
 * A duplicate of MPI_COMM_WORLD (MPI must be initialised), so shardrun's messages never
 * meet another library's; errors come back as MpiError.
 */
std::unique_ptr<Communicator> world();

/** The members of `comm` that share memory with this rank (MPI_Comm_split_type SHARED). Collective. */
std::unique_ptr<Communicator> split_by_node(const Communicator& comm);

/** The MPI_Comm behind an MPI-backend communicator. @throws std::invalid_argument for another backend */
MPI_Comm native_handle(const Communicator& comm);

/** True when MPI was initialised with MPI_THREAD_MULTIPLE (background threads may call MPI). */
bool threads_may_call_mpi();

/** Ends every rank of the job now with `code` (MPI_Abort on the world); callable from any thread. */
[[noreturn]] void abort_job(int code);

}  // namespace shardrun::collectives::mpi
