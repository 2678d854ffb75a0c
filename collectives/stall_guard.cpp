#include "collectives/stall_guard.hpp"

#include "collectives/guarded_operation.hpp"
#include "collectives/stall_guard_pair.hpp"

#include <cstring>

namespace shardrun::collectives {
namespace {

constexpr std::int64_t drain_every = 64;  ///< collectives between two looks for notes nobody armed to read

}  // namespace

StallGuard::StallGuard(Communicator& inner, double timeout_seconds, std::vector<std::string> member_names,
                       std::string group_name)
    : inner_(inner), timeout_seconds_(timeout_seconds), member_names_(std::move(member_names)),
      group_name_(std::move(group_name)), noted_(static_cast<size_t>(inner.size()), 0)
{
}

Request StallGuard::guard(const char* name, std::size_t bytes, Request operation)
{
    // The notes of a member that armed reach members that may never arm to read them: a look
    // now and then keeps MPI's queue of unread messages short (one probe when it is empty).
    ++sequence_;
    if (timeout_seconds_ > 0 && sequence_ % drain_every == 0) collect_notes(inner_, noted_);
    return guarded_operation(inner_, std::move(operation), name, bytes, sequence_, timeout_seconds_, noted_,
                             member_names_, group_name_);
}

// Blocking collectives read the caller's input in place and receive into a scratch buffer that
// is copied out once they complete: after a stall the abandoned operation may still complete
// when the late member arrives (inside any later MPI call of this process), and must not write
// into the caller's (by then reused) memory. The scratch is kept until exit in that case only;
// otherwise the next collective reuses it, so a large one does not map and fault in fresh pages
// each time. The input is only read, and is not copied: a late member may then get what the
// caller's memory holds by that time, but the job is ending (the runner aborts it).
void StallGuard::run_blocking(const char* name, std::size_t bytes, std::size_t out_bytes, void* out,
                              const std::function<Request(std::byte*)>& start, std::size_t scratch_bytes)
{
    scratch_bytes = std::max(scratch_bytes, out_bytes);
    if (scratch_bytes_ < scratch_bytes) {
        scratch_bytes_ = 0;
        scratch_.reset();  // before the new one: never both at once
        scratch_.reset(new std::byte[scratch_bytes]);
        scratch_bytes_ = scratch_bytes;
    }
    std::byte* scratch = scratch_.get();
    auto request = guard(name, bytes, start(scratch));
    try {
        request.wait();
    } catch (...) {
        keep_until_exit(std::shared_ptr<std::byte[]>(std::move(scratch_)));
        scratch_bytes_ = 0;
        throw;
    }
    if (out_bytes > 0) std::memcpy(out, scratch, out_bytes);
}

void StallGuard::barrier() { ibarrier().wait(); }
Request StallGuard::ibarrier() { return guard("barrier", 0, inner_.ibarrier()); }

void StallGuard::broadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    // The root's buffer is only read: it is broadcast from in place; the others receive into the scratch.
    const auto bytes = count * size_of(type);
    const bool root_here = root == rank();
    run_blocking("broadcast", bytes, root_here ? 0 : bytes, data, [&](std::byte* out) {
        return inner_.ibroadcast_raw(root_here ? data : out, count, type, root);
    });
}
Request StallGuard::ibroadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    return guard("broadcast", count * size_of(type), inner_.ibroadcast_raw(data, count, type, root));
}

void StallGuard::allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    const auto bytes = count * size_of(type);
    if (size() == 2) {
        // One exchange each way, the peer's data into the scratch, reduced into the caller's
        // buffer by this process as it arrives (stall_guard_pair.hpp).
        run_blocking("allreduce", bytes, 0, nullptr, [&](std::byte* peer) {
            return Request(std::make_unique<pair::PairAllreduce>(inner_, send, peer, recv, count, type, op));
        }, bytes);
        return;
    }
    // Out of place even when the caller reduces in place: the scratch is the only buffer written
    // (and Open MPI's non-blocking in-place allreduce takes a slower path).
    run_blocking("allreduce", bytes, bytes, recv,
                 [&](std::byte* out) { return inner_.iallreduce_raw(send, out, count, type, op); });
}
Request StallGuard::iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    return guard("allreduce", count * size_of(type), inner_.iallreduce_raw(send, recv, count, type, op));
}

void StallGuard::allgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    const auto bytes = count * size_of(type) * static_cast<std::size_t>(size());
    run_blocking("allgather", bytes, bytes, recv,
                 [&](std::byte* out) { return inner_.iallgather_raw(send, out, count, type); });
}
Request StallGuard::iallgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    return guard("allgather", count * size_of(type) * static_cast<std::size_t>(size()),
                 inner_.iallgather_raw(send, recv, count, type));
}

void StallGuard::reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type, ReduceOp op)
{
    const auto bytes = recv_count * size_of(type);
    run_blocking("reduce_scatter", bytes * static_cast<std::size_t>(size()), bytes, recv,
                 [&](std::byte* out) { return inner_.ireduce_scatter_raw(send, out, recv_count, type, op); });
}
Request StallGuard::ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                        ReduceOp op)
{
    return guard("reduce_scatter", recv_count * size_of(type) * static_cast<std::size_t>(size()),
                 inner_.ireduce_scatter_raw(send, recv, recv_count, type, op));
}

void StallGuard::send_raw(const void* data, std::size_t count, DataType type, int dest, int tag)
{
    inner_.send_raw(data, count, type, dest, tag);
}
Request StallGuard::isend_raw(const void* data, std::size_t count, DataType type, int dest, int tag)
{
    return inner_.isend_raw(data, count, type, dest, tag);
}
void StallGuard::recv_raw(void* data, std::size_t count, DataType type, int source, int tag)
{
    inner_.recv_raw(data, count, type, source, tag);
}
Request StallGuard::irecv_raw(void* data, std::size_t count, DataType type, int source, int tag)
{
    return inner_.irecv_raw(data, count, type, source, tag);
}

}  // namespace shardrun::collectives
