#pragma once

// @internal StallGuard's blocking allreduce for a group of two: one message each way and a
// local reduction, instead of a non-blocking MPI collective. Open MPI 4.1's coll/libnbc runs
// every MPI_Iallreduce below 4 ranks as a binomial reduce-then-broadcast (the two transfers one
// after the other, the result sent back), progressed only on every 8th poll: 0.5-0.8 x the
// blocking MPI_Allreduce, which exchanges both ways at once. This is that exchange, with the
// peer's data received into the guard's scratch (the only memory MPI writes: an abandoned
// exchange never writes into the caller's) and the reduction written by this process itself,
// synchronously, straight into the caller's buffer.
#include <cstddef>
#include <cstring>

#include "collectives/communicator.hpp"

namespace shardrun::collectives::pair {

/** The guard's tag for the exchange's messages (next to its note, ping and pong tags). */
inline constexpr int exchange_tag = 97;

/** Both halves of an exchange: complete when the peer's data is in and ours is out. */
class Exchange final : public PendingOperation {
public:
    Exchange(Request send, Request recv) : send_(std::move(send)), recv_(std::move(recv)) {}
    bool test() override { return recv_.test() && send_.test(); }
    void wait() override
    {
        recv_.wait();
        send_.wait();
    }

private:
    Request send_, recv_;
};

/** Starts the exchange of `bytes` with the other member of a group of two. */
inline Request exchange(Communicator& comm, const void* send, std::byte* peer, std::size_t count, DataType type)
{
    const int other = 1 - comm.rank();
    auto recv = comm.irecv_raw(peer, count, type, other, exchange_tag);
    auto sent = comm.isend_raw(send, count, type, other, exchange_tag);
    return Request(std::make_unique<Exchange>(std::move(sent), std::move(recv)));
}

template <typename T>
void combine(const T* first, const T* second, T* out, std::size_t count, ReduceOp op)
{
    // `first` is always member 0's data: both members compute the same expression of the same
    // pair and so get the same bits (a NaN in min or max included).
    switch (op) {
    case ReduceOp::sum:
        for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<T>(first[i] + second[i]);
        break;
    case ReduceOp::avg:  // a sum divided by the size, as the MPI backend does (integer division for integers)
        for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<T>(static_cast<T>(first[i] + second[i]) / T(2));
        break;
    case ReduceOp::min:
        for (std::size_t i = 0; i < count; ++i) out[i] = second[i] < first[i] ? second[i] : first[i];
        break;
    case ReduceOp::max:
        for (std::size_t i = 0; i < count; ++i) out[i] = first[i] < second[i] ? second[i] : first[i];
        break;
    }
}

/** out = op(first, second) elementwise, first being member 0's data; out may be either (in place). */
inline void reduce(const void* first, const void* second, void* out, std::size_t count, DataType type, ReduceOp op)
{
    switch (type) {
    case DataType::uint8:
        return combine(static_cast<const std::uint8_t*>(first), static_cast<const std::uint8_t*>(second),
                       static_cast<std::uint8_t*>(out), count, op);
    case DataType::int32:
        return combine(static_cast<const std::int32_t*>(first), static_cast<const std::int32_t*>(second),
                       static_cast<std::int32_t*>(out), count, op);
    case DataType::uint32:
        return combine(static_cast<const std::uint32_t*>(first), static_cast<const std::uint32_t*>(second),
                       static_cast<std::uint32_t*>(out), count, op);
    case DataType::int64:
        return combine(static_cast<const std::int64_t*>(first), static_cast<const std::int64_t*>(second),
                       static_cast<std::int64_t*>(out), count, op);
    case DataType::uint64:
        return combine(static_cast<const std::uint64_t*>(first), static_cast<const std::uint64_t*>(second),
                       static_cast<std::uint64_t*>(out), count, op);
    case DataType::float32:
        return combine(static_cast<const float*>(first), static_cast<const float*>(second), static_cast<float*>(out),
                       count, op);
    case DataType::float64:
        return combine(static_cast<const double*>(first), static_cast<const double*>(second), static_cast<double*>(out),
                       count, op);
    }
}

}  // namespace shardrun::collectives::pair
