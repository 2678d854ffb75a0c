#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace shardrun::collectives {

/** Reduction of allreduce and reduce_scatter; avg is sum / size (integer division for integers). */
enum class ReduceOp { sum, min, max, avg };

/** recv/irecv source: whichever member sends first. */
inline constexpr int any_source = -1;

/** Element types the collectives carry. */
enum class DataType { uint8, int32, uint32, int64, uint64, float32, float64 };

/** The DataType of T (compile error for other types). */
template <typename T>
constexpr DataType data_type_of() noexcept
{
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, std::uint8_t> || std::is_same_v<U, std::byte> || std::is_same_v<U, char>) {
        return DataType::uint8;
    } else if constexpr (std::is_same_v<U, std::int32_t>) {
        return DataType::int32;
    } else if constexpr (std::is_same_v<U, std::uint32_t>) {
        return DataType::uint32;
    } else if constexpr (std::is_same_v<U, std::int64_t> || std::is_same_v<U, long long>) {
        return DataType::int64;
    } else if constexpr (std::is_same_v<U, std::uint64_t> || std::is_same_v<U, unsigned long long>) {
        return DataType::uint64;
    } else if constexpr (std::is_same_v<U, float>) {
        return DataType::float32;
    } else {
        static_assert(std::is_same_v<U, double>, "collectives carry uint8/int32/uint32/int64/uint64/float/double");
        return DataType::float64;
    }
}

/** Bytes of one element of `type`. */
std::size_t size_of(DataType type) noexcept;

/** A started non-blocking operation; the backend's state behind it is opaque. */
class PendingOperation {
public:
    virtual ~PendingOperation() = default;
    /** True once complete (then finishing work such as avg's division has been done). */
    virtual bool test() = 0;
    virtual void wait() = 0;
    /**
     * Lets go of an operation nobody will wait for. True when it was released (a message's
     * request freed: the library completes it on its own); false when it must be leaked
     * instead (a collective's request may not be freed).
     */
    virtual bool release_unwaited() noexcept { return false; }
};

/**
 * A waitable handle of a non-blocking collective or message. The buffers it was started with
 * must stay alive until wait() returns or test() returned true. Destroying an unfinished
 * request waits for it.
 */
class Request {
public:
    Request() = default;
    explicit Request(std::unique_ptr<PendingOperation> operation) : operation_(std::move(operation)) {}
    Request(Request&&) noexcept = default;
    Request& operator=(Request&& other) noexcept;
    ~Request();

    /** Blocks until complete. A default-constructed request is complete. */
    void wait();
    /** True when complete; never blocks. */
    bool test();
    /**
     * Gives up on an operation that will never complete (a member that never joined): drops
     * it without waiting. Its buffers must outlive the process's use of MPI; callers do this
     * only on the way to ending the job.
     */
    void abandon() noexcept;

private:
    std::unique_ptr<PendingOperation> operation_;
};

/** Waits for every request. */
void wait_all(std::span<Request> requests);

/**
 * Keeps memory an abandoned operation may still write into alive, and reachable, until the
 * process exits: the late member's data can still arrive, and a leak checker must not call it
 * lost.
 */
void keep_until_exit(std::shared_ptr<const void> kept) noexcept;

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
    virtual bool iprobe(int source, int tag);

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

/** Every member's bytes, indexed by rank (lengths may differ). Collective. */
std::vector<std::string> allgather_strings(Communicator& comm, const std::string& mine);

}  // namespace shardrun::collectives
