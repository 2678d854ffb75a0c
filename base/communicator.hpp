#pragma once

// The Communicator interface, below collectives/ (its MPI and NCCL backends) and io/ (which writes
// the single-layout file collectively over the run's communicator), so both see one interface
// without including each other. Header-only and free of MPI, NCCL and CUDA types, as all of base/.
// collectives/communicator.hpp brings these names into shardrun::collectives as well.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "base/collective_types.hpp"
#include "base/request.hpp"

namespace shardrun::base {

/**
 * A group of ranks that run collectives together (the world, a node, a task's group).
 * Collective calls must be made by every member in the same order. The MPI backend works
 * on host memory; a device backend (NCCL) works on device memory.
 *
 * Raw operations take element counts; the typed templates below check span sizes and are
 * what callers use.
 */
class Communicator {
public:
    virtual ~Communicator() = default;

    virtual int rank() const noexcept = 0;
    virtual int size() const noexcept = 0;

    /**
     * Members with the same color form one new communicator, ordered by key (ties: by rank).
     * Collective. A negative color gives nullptr (the caller joins no communicator).
     */
    virtual std::unique_ptr<Communicator> split(int color, int key) const = 0;

    virtual void barrier() = 0;
    virtual Request ibarrier() = 0;

    virtual void broadcast_raw(void* data, std::size_t count, DataType type, int root) = 0;
    virtual Request ibroadcast_raw(void* data, std::size_t count, DataType type, int root) = 0;
    /** `send == recv` reduces in place. */
    virtual void allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) = 0;
    virtual Request iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) = 0;
    /** recv holds count * size() elements, rank r's block at r * count. */
    virtual void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) = 0;
    virtual Request iallgather_raw(const void* send, void* recv, std::size_t count, DataType type) = 0;
    /** send holds recv_count * size() elements; rank r receives the reduction of block r. */
    virtual void reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                    ReduceOp op) = 0;
    virtual Request ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                        ReduceOp op) = 0;

    /** Point-to-point messages; messages from one sender with one tag arrive in order. */
    virtual void send_raw(const void* data, std::size_t count, DataType type, int dest, int tag) = 0;
    virtual Request isend_raw(const void* data, std::size_t count, DataType type, int dest, int tag) = 0;
    virtual void recv_raw(void* data, std::size_t count, DataType type, int source, int tag) = 0;
    virtual Request irecv_raw(void* data, std::size_t count, DataType type, int source, int tag) = 0;
    /** True when a message from `source` (or any_source) with `tag` waits to be received; never blocks. */
    virtual bool iprobe(int /*source*/, int /*tag*/)
    {
        throw std::logic_error("iprobe: this communicator's backend cannot probe for messages");
    }

    /**
     * For the few callers that must hand the backend's own handle to a library (parallel HDF5's
     * H5Pset_fapl_mpio, io's MPI_Gatherv of bytes): when this communicator is an MPI
     * communicator, writes its MPI_Comm into `out` (which must point to an MPI_Comm) and returns
     * true; false for every other backend (NCCL, decorators such as StallGuard, test doubles).
     * A void* keeps every MPI type out of base/; io/single/native_comm.hpp is the typed side.
     */
    virtual bool native_mpi_comm(void* /*out*/) const noexcept { return false; }

    template <typename T>
    void broadcast(std::span<T> data, int root)
    {
        broadcast_raw(data.data(), data.size(), data_type_of<T>(), root);
    }
    template <typename T>
    Request ibroadcast(std::span<T> data, int root)
    {
        return ibroadcast_raw(data.data(), data.size(), data_type_of<T>(), root);
    }
    /** One value from root to every member. */
    template <typename T>
    T broadcast_value(T value, int root)
    {
        broadcast(std::span<T>(&value, 1), root);
        return value;
    }

    template <typename T>
    void allreduce(std::span<const T> send, std::span<T> recv, ReduceOp op)
    {
        require(send.size() == recv.size(), "allreduce: send and recv differ in size");
        allreduce_raw(send.data(), recv.data(), recv.size(), data_type_of<T>(), op);
    }
    template <typename T>
    void allreduce(std::span<T> data, ReduceOp op)
    {
        allreduce_raw(data.data(), data.data(), data.size(), data_type_of<T>(), op);
    }
    template <typename T>
    Request iallreduce(std::span<const T> send, std::span<T> recv, ReduceOp op)
    {
        require(send.size() == recv.size(), "iallreduce: send and recv differ in size");
        return iallreduce_raw(send.data(), recv.data(), recv.size(), data_type_of<T>(), op);
    }
    template <typename T>
    Request iallreduce(std::span<T> data, ReduceOp op)
    {
        return iallreduce_raw(data.data(), data.data(), data.size(), data_type_of<T>(), op);
    }
    /** The reduction of one value over every member. */
    template <typename T>
    T allreduce_value(T value, ReduceOp op)
    {
        allreduce(std::span<T>(&value, 1), op);
        return value;
    }

    template <typename T>
    void allgather(std::span<const T> send, std::span<T> recv)
    {
        require(recv.size() == send.size() * static_cast<std::size_t>(size()), "allgather: recv must hold size() * send");
        allgather_raw(send.data(), recv.data(), send.size(), data_type_of<T>());
    }
    template <typename T>
    Request iallgather(std::span<const T> send, std::span<T> recv)
    {
        require(recv.size() == send.size() * static_cast<std::size_t>(size()), "iallgather: recv must hold size() * send");
        return iallgather_raw(send.data(), recv.data(), send.size(), data_type_of<T>());
    }
    /** Every member's value, indexed by rank. */
    template <typename T>
    std::vector<T> allgather_value(T value)
    {
        std::vector<T> all(static_cast<std::size_t>(size()));
        allgather(std::span<const T>(&value, 1), std::span<T>(all));
        return all;
    }

    template <typename T>
    void reduce_scatter(std::span<const T> send, std::span<T> recv, ReduceOp op)
    {
        require(send.size() == recv.size() * static_cast<std::size_t>(size()),
                "reduce_scatter: send must hold size() * recv");
        reduce_scatter_raw(send.data(), recv.data(), recv.size(), data_type_of<T>(), op);
    }
    template <typename T>
    Request ireduce_scatter(std::span<const T> send, std::span<T> recv, ReduceOp op)
    {
        require(send.size() == recv.size() * static_cast<std::size_t>(size()),
                "ireduce_scatter: send must hold size() * recv");
        return ireduce_scatter_raw(send.data(), recv.data(), recv.size(), data_type_of<T>(), op);
    }

    template <typename T>
    void send(std::span<const T> data, int dest, int tag)
    {
        send_raw(data.data(), data.size(), data_type_of<T>(), dest, tag);
    }
    template <typename T>
    Request isend(std::span<const T> data, int dest, int tag)
    {
        return isend_raw(data.data(), data.size(), data_type_of<T>(), dest, tag);
    }
    template <typename T>
    void recv(std::span<T> data, int source, int tag)
    {
        recv_raw(data.data(), data.size(), data_type_of<T>(), source, tag);
    }
    template <typename T>
    Request irecv(std::span<T> data, int source, int tag)
    {
        return irecv_raw(data.data(), data.size(), data_type_of<T>(), source, tag);
    }

private:
    static void require(bool ok, const char* what)
    {
        if (!ok) throw std::invalid_argument(what);
    }
};

}  // namespace shardrun::base
