#pragma once

// @internal StallGuard's blocking allreduce for a group of two: one message each way and a
// local reduction, instead of a non-blocking MPI collective. Open MPI 4.1's coll/libnbc runs
// every MPI_Iallreduce below 4 ranks as a binomial reduce-then-broadcast (the two transfers one
// after the other, the result sent back): 0.2-0.8 x the blocking MPI_Allreduce, which
// exchanges both ways at once (benchmarks/README.md, "Allreduce"). This is that exchange, with
// the peer's data received into the guard's scratch (the only memory MPI writes: an abandoned
// exchange never writes into the caller's) and the reduction written by this process itself,
// in its own calls, straight into the caller's buffer.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::collectives::pair {

/** The guard's tag for the exchange's messages (next to its note, ping and pong tags); a member's messages with one tag arrive in order. */
inline constexpr int exchange_tag = 97;

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
    // Each element type once: the same combine() on the buffers seen as T.
    const auto as = [&]<typename T>(T) {
        combine(static_cast<const T*>(first), static_cast<const T*>(second), static_cast<T*>(out), count, op);
    };
    switch (type) {
    case DataType::uint8: return as(std::uint8_t{});
    case DataType::int32: return as(std::int32_t{});
    case DataType::uint32: return as(std::uint32_t{});
    case DataType::int64: return as(std::int64_t{});
    case DataType::uint64: return as(std::uint64_t{});
    case DataType::float32: return as(float{});
    case DataType::float64: return as(double{});
    }
}

/**
 * The allreduce of a group of two, in chunks of 256 KiB: every chunk's message each way is
 * posted at once, and each chunk is reduced into `out` as soon as it is in (and, reducing in
 * place, ours has gone), while it is still in cache and the later chunks move. The reduction
 * runs inside test() only, so after a stall (the operation abandoned, never tested again)
 * nothing writes into `out`.
 */
class PairAllreduce final : public PendingOperation {
public:
    PairAllreduce(Communicator& comm, const void* send, std::byte* peer, void* out, std::size_t count, DataType type,
                  ReduceOp op)
        : send_(static_cast<const std::byte*>(send)), peer_(peer), out_(static_cast<std::byte*>(out)),
          element_(size_of(type)), chunk_(std::max<std::size_t>(1, chunk_bytes / size_of(type))), count_(count),
          type_(type), op_(op), first_(comm.rank() == 0)
    {
        const int other = 1 - comm.rank();
        for (std::size_t at = 0; at == 0 || at < count; at += chunk_) {
            const auto n = std::min(chunk_, count - at);
            receives_.push_back(comm.irecv_raw(peer_ + at * element_, n, type, other, exchange_tag));
            sends_.push_back(comm.isend_raw(send_ + at * element_, n, type, other, exchange_tag));
        }
    }

    bool test() override
    {
        for (; next_ < receives_.size(); ++next_) {
            if (!receives_[next_].test() || !sends_[next_].test()) return false;
            const auto at = next_ * chunk_ * element_;
            const auto n = std::min(chunk_, count_ - std::min(count_, next_ * chunk_));
            reduce(first_ ? send_ + at : peer_ + at, first_ ? peer_ + at : send_ + at, out_ + at, n, type_, op_);
        }
        return true;
    }
    void wait() override
    {
        while (!test()) {
        }
    }

private:
    static constexpr std::size_t chunk_bytes = std::size_t{256} << 10;  ///< half a core's L2 here

    const std::byte* send_;
    std::byte* peer_;
    std::byte* out_;
    std::size_t element_, chunk_, count_;
    DataType type_;
    ReduceOp op_;
    bool first_;  ///< this member is member 0: its data comes first in every reduction
    std::vector<Request> receives_, sends_;
    std::size_t next_ = 0;  ///< the first chunk not reduced yet
};

}  // namespace shardrun::collectives::pair
