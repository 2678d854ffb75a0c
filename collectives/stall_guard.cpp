#include "collectives/stall_guard.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace shardrun::collectives {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int note_tag = 94;
constexpr int ping_tag = 95;
constexpr int pong_tag = 96;
constexpr double ping_grace_seconds = 3.0;

// How long wait() polls without pause: what moving `bytes` takes at 0.5 GB/s (well below
// shared memory's speed), at least 1 ms.
Clock::duration spin_window(std::size_t bytes)
{
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(1e-3, static_cast<double>(bytes) / 0.5e9)));
}

// A member waiting in a guarded collective answers every ping, so a stalled peer can tell
// who is alive and waiting from who is not.
void answer_pings(Communicator& comm)
{
    while (comm.iprobe(any_source, ping_tag)) {
        // The sender is found by probing each member: the interface has no receive status.
        for (int m = 0; m < comm.size(); ++m) {
            if (m == comm.rank() || !comm.iprobe(m, ping_tag)) continue;
            std::int64_t ping = 0;
            comm.recv(std::span<std::int64_t>(&ping, 1), m, ping_tag);
            static const std::int64_t pong = 1;
            comm.isend(std::span<const std::int64_t>(&pong, 1), m, pong_tag).abandon();  // a few bytes, eager
        }
    }
}

/** One guarded collective: the operation, the arrival notes, and the deadline. */
class GuardedOperation final : public PendingOperation {
public:
    GuardedOperation(Communicator& comm, Request operation, const char* name, std::size_t bytes, std::int64_t sequence,
                     double timeout, const std::vector<std::string>& members, const std::string& group)
        : comm_(comm), operation_(std::move(operation)), name_(name), bytes_(bytes), sequence_(sequence), timeout_(timeout),
          members_(members), group_(group), buffers_(new NoteBuffers{std::vector<std::int64_t>(static_cast<size_t>(comm.size()), -1), sequence})
    {
        started_ = Clock::now();
        for (int m = 0; m < comm.size(); ++m) {
            if (m == comm.rank()) {
                receives_.emplace_back();
                continue;
            }
            receives_.push_back(comm.irecv(std::span<std::int64_t>(&buffers_->notes[static_cast<size_t>(m)], 1), m, note_tag));
            sends_.push_back(comm.isend(std::span<const std::int64_t>(&buffers_->sequence, 1), m, note_tag));
        }
    }

    bool test() override
    {
        answer_pings(comm_);
        if (!operation_.test()) {
            if (timeout_ > 0 && Clock::now() - started_ > std::chrono::duration<double>(timeout_)) stall();
            return false;
        }
        // Everyone joined, so every note has been sent: collect them for the next collective.
        wait_all(receives_);
        wait_all(sends_);
        return true;
    }

    void wait() override
    {
        // Poll without pause while the transfer itself may still be under way: MPI moves a
        // non-blocking collective's data only inside calls such as test(), so a nap there
        // stalls the transfer (a 64 MiB allreduce progressed once per nap). Past that, sleep
        // between polls so a member waiting for a slow one leaves the core to real work.
        const auto spin_until = started_ + spin_window(bytes_);
        for (int spin = 0; spin < 200 || Clock::now() < spin_until; ++spin) {
            if (test()) return;
        }
        auto nap = std::chrono::microseconds(10);
        while (!test()) {
            std::this_thread::sleep_for(nap);
            nap = std::min(nap * 2, std::chrono::microseconds(1000));
        }
    }

private:
    // Which members answer a ping within the grace period; a waiting member answers at once.
    std::vector<bool> responsive()
    {
        std::vector<bool> answered(static_cast<size_t>(comm_.size()), false);
        answered[static_cast<size_t>(comm_.rank())] = true;
        static const std::int64_t ping = 1;
        std::vector<Request> pings;
        for (int m = 0; m < comm_.size(); ++m) {
            if (m != comm_.rank()) pings.push_back(comm_.isend(std::span<const std::int64_t>(&ping, 1), m, ping_tag));
        }
        const auto until = Clock::now() + std::chrono::duration<double>(std::min(timeout_, ping_grace_seconds));
        while (Clock::now() < until && std::count(answered.begin(), answered.end(), false) > 0) {
            answer_pings(comm_);
            for (int m = 0; m < comm_.size(); ++m) {
                if (answered[static_cast<size_t>(m)] || !comm_.iprobe(m, pong_tag)) continue;
                std::int64_t pong = 0;
                comm_.recv(std::span<std::int64_t>(&pong, 1), m, pong_tag);
                answered[static_cast<size_t>(m)] = true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        for (auto& p : pings) p.abandon();  // a stopped member never takes its ping
        return answered;
    }

    [[noreturn]] void stall()
    {
        const auto answered = responsive();
        std::string culprits;
        for (int m = 0; m < comm_.size(); ++m) {
            if (answered[static_cast<size_t>(m)]) continue;
            const bool entered = receives_[static_cast<size_t>(m)].test();
            culprits += (culprits.empty() ? "" : ", ") + std::string("member ") + std::to_string(m) + " (" +
                        (static_cast<size_t>(m) < members_.size() ? members_[static_cast<size_t>(m)] + ", " : "") +
                        (entered ? "entered it, then stopped responding" : "never entered it") + ")";
        }
        operation_.abandon();
        for (auto& r : receives_) r.abandon();
        for (auto& s : sends_) s.abandon();
        keep_until_exit(std::shared_ptr<NoteBuffers>(std::move(buffers_)));  // a late member's note may still arrive
        SHARDRUN_THROW(CollectiveStall, name_ + " #" + std::to_string(sequence_) + " of " + group_ + " (" +
                                        std::to_string(comm_.size()) + " members) did not complete within " +
                                        std::to_string(static_cast<long>(timeout_)) + " s; not responding: " +
                                        (culprits.empty() ? "none (every member answers; the transport is stuck)" : culprits));
    }

    Communicator& comm_;
    Request operation_;
    std::string name_;
    std::size_t bytes_;
    std::int64_t sequence_;
    double timeout_;
    const std::vector<std::string>& members_;
    const std::string& group_;
    struct NoteBuffers {
        std::vector<std::int64_t> notes;
        std::int64_t sequence;
    };
    std::unique_ptr<NoteBuffers> buffers_;
    std::vector<Request> receives_, sends_;
    Clock::time_point started_;
};

}  // namespace

StallGuard::StallGuard(Communicator& inner, double timeout_seconds, std::vector<std::string> member_names,
                       std::string group_name)
    : inner_(inner), timeout_seconds_(timeout_seconds), member_names_(std::move(member_names)),
      group_name_(std::move(group_name))
{
}

Request StallGuard::guard(const char* name, std::size_t bytes, Request operation)
{
    return Request(std::make_unique<GuardedOperation>(inner_, std::move(operation), name, bytes, ++sequence_,
                                                       timeout_seconds_, member_names_, group_name_));
}

// Blocking collectives run on a heap copy of their buffers: after a stall the abandoned
// operation may still complete when the late member arrives, and must not write into the
// caller's (by then reused) memory. The copy is kept until exit in that case only; otherwise
// the next collective reuses it, so a large one does not map and fault in fresh pages each time.
void StallGuard::run_blocking(const char* name, std::size_t in_bytes, const void* in, std::size_t out_bytes, void* out,
                              const std::function<Request(std::byte*, std::byte*)>& start)
{
    if (scratch_bytes_ < in_bytes + out_bytes) {
        scratch_bytes_ = 0;
        scratch_.reset();  // before the new one: never both at once
        scratch_.reset(new std::byte[in_bytes + out_bytes]);
        scratch_bytes_ = in_bytes + out_bytes;
    }
    std::byte* scratch = scratch_.get();
    if (in_bytes > 0) std::memcpy(scratch, in, in_bytes);
    auto request = guard(name, in_bytes + out_bytes, start(scratch, scratch + in_bytes));
    try {
        request.wait();
    } catch (...) {
        keep_until_exit(std::shared_ptr<std::byte[]>(std::move(scratch_)));
        scratch_bytes_ = 0;
        throw;
    }
    if (out_bytes > 0) std::memcpy(out, scratch + in_bytes, out_bytes);
}

void StallGuard::barrier() { ibarrier().wait(); }
Request StallGuard::ibarrier() { return guard("barrier", 0, inner_.ibarrier()); }

void StallGuard::broadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    const auto bytes = count * size_of(type);
    run_blocking("broadcast", 0, nullptr, bytes, data, [&](std::byte*, std::byte* out) {
        std::memcpy(out, data, bytes);
        return inner_.ibroadcast_raw(out, count, type, root);
    });
}
Request StallGuard::ibroadcast_raw(void* data, std::size_t count, DataType type, int root)
{
    return guard("broadcast", count * size_of(type), inner_.ibroadcast_raw(data, count, type, root));
}

void StallGuard::allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    const auto bytes = count * size_of(type);
    run_blocking("allreduce", 0, nullptr, bytes, recv, [&](std::byte*, std::byte* out) {
        std::memcpy(out, send, bytes);
        return inner_.iallreduce_raw(out, out, count, type, op);
    });
}
Request StallGuard::iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op)
{
    return guard("allreduce", count * size_of(type), inner_.iallreduce_raw(send, recv, count, type, op));
}

void StallGuard::allgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    const auto bytes = count * size_of(type);
    run_blocking("allgather", bytes, send, bytes * static_cast<std::size_t>(size()), recv,
                 [&](std::byte* in, std::byte* out) { return inner_.iallgather_raw(in, out, count, type); });
}
Request StallGuard::iallgather_raw(const void* send, void* recv, std::size_t count, DataType type)
{
    return guard("allgather", count * size_of(type) * static_cast<std::size_t>(size()),
                 inner_.iallgather_raw(send, recv, count, type));
}

void StallGuard::reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type, ReduceOp op)
{
    const auto bytes = recv_count * size_of(type);
    run_blocking("reduce_scatter", bytes * static_cast<std::size_t>(size()), send, bytes, recv,
                 [&](std::byte* in, std::byte* out) { return inner_.ireduce_scatter_raw(in, out, recv_count, type, op); });
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
