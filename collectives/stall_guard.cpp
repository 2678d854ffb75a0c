#include "collectives/stall_guard.hpp"

#include "collectives/stall_guard_pair.hpp"

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
constexpr double arm_after_seconds = 1.0;
constexpr std::int64_t drain_every = 64;  ///< collectives between two looks for notes nobody armed to read

// A collective still pending this long after it started arms its watchdog: sends its arrival
// notes and answers pings. Always shorter than a pinger's grace, min(timeout, 3 s), so every
// member waiting in the collective has armed before the pinger decides who is missing.
double arm_seconds(double timeout) { return timeout > 0 ? std::min(arm_after_seconds, timeout / 4) : arm_after_seconds; }

// How long wait() polls without pause: what moving `bytes` takes at 0.5 GB/s (well below
// shared memory's speed), and at least until the watchdog arms.
Clock::duration spin_window(std::size_t bytes, double timeout)
{
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
        std::max(arm_seconds(timeout), static_cast<double>(bytes) / 0.5e9)));
}

// Takes in every arrival note that waits, keeping the highest sequence each member noted.
void collect_notes(Communicator& comm, std::vector<std::int64_t>& noted)
{
    while (comm.iprobe(any_source, note_tag)) {
        // The sender is found by probing each member: the interface has no receive status.
        for (int m = 0; m < comm.size(); ++m) {
            if (m == comm.rank() || !comm.iprobe(m, note_tag)) continue;
            std::int64_t note = 0;
            comm.recv(std::span<std::int64_t>(&note, 1), m, note_tag);
            noted[static_cast<size_t>(m)] = std::max(noted[static_cast<size_t>(m)], note);
        }
    }
}

// An armed member waiting in a guarded collective answers every ping, so a stalled peer can
// tell who is alive and waiting from who is not.
void answer_pings(Communicator& comm)
{
    while (comm.iprobe(any_source, ping_tag)) {
        for (int m = 0; m < comm.size(); ++m) {
            if (m == comm.rank() || !comm.iprobe(m, ping_tag)) continue;
            std::int64_t ping = 0;
            comm.recv(std::span<std::int64_t>(&ping, 1), m, ping_tag);
            static const std::int64_t pong = 1;
            comm.isend(std::span<const std::int64_t>(&pong, 1), m, pong_tag).abandon();  // a few bytes, eager
        }
    }
}

/** One guarded collective: the operation, the deadline, and once armed the notes and pings. */
class GuardedOperation final : public PendingOperation {
public:
    GuardedOperation(Communicator& comm, Request operation, const char* name, std::size_t bytes, std::int64_t sequence,
                     double timeout, std::vector<std::int64_t>& noted, const std::vector<std::string>& members,
                     const std::string& group)
        : comm_(comm), operation_(std::move(operation)), name_(name), bytes_(bytes), timeout_(timeout), noted_(noted),
          members_(members), group_(group), sequence_(new std::int64_t(sequence)), started_(Clock::now())
    {
    }

    bool test() override
    {
        if (!notes_.empty()) answer_pings(comm_);
        if (operation_.test()) {
            wait_all(notes_);  // a few bytes each: sent eagerly
            return true;
        }
        if (timeout_ <= 0) return false;
        const auto waited = std::chrono::duration<double>(Clock::now() - started_).count();
        if (notes_.empty() && waited >= arm_seconds(timeout_)) arm();
        if (waited > timeout_) stall();
        return false;
    }

    void wait() override
    {
        // Poll without pause while the transfer may still be under way and until the watchdog
        // arms: MPI moves a non-blocking operation's data only inside calls such as test(), so a
        // nap there stalls the transfer (MPI's own blocking calls spin throughout). Past that,
        // sleep between polls so a member waiting for a slow one leaves the core to real work.
        const auto spin_until = started_ + spin_window(bytes_, timeout_);
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
    // Still pending after the arm interval: tell every other member that this one entered,
    // and from now on answer pings.
    void arm()
    {
        collect_notes(comm_, noted_);  // older notes, so the queue stays short
        for (int m = 0; m < comm_.size(); ++m) {
            if (m != comm_.rank()) notes_.push_back(comm_.isend(std::span<const std::int64_t>(sequence_.get(), 1), m, note_tag));
        }
        if (notes_.empty()) notes_.emplace_back();  // one member: armed all the same
    }

    // Which members answer a ping within the grace period; an armed waiting member answers at once.
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
        collect_notes(comm_, noted_);
        std::string culprits;
        for (int m = 0; m < comm_.size(); ++m) {
            if (answered[static_cast<size_t>(m)]) continue;
            // A member notes the collective it waits in once armed, and collectives run in
            // order: a note of this one or a later one means it entered this one.
            const bool entered = noted_[static_cast<size_t>(m)] >= *sequence_;
            culprits += (culprits.empty() ? "" : ", ") + std::string("member ") + std::to_string(m) + " (" +
                        (static_cast<size_t>(m) < members_.size() ? members_[static_cast<size_t>(m)] + ", " : "") +
                        (entered ? "entered it, then stopped responding" : "never entered it") + ")";
        }
        const auto sequence = *sequence_;
        operation_.abandon();
        for (auto& n : notes_) n.abandon();
        keep_until_exit(std::shared_ptr<std::int64_t>(std::move(sequence_)));  // what the notes send
        SHARDRUN_THROW(CollectiveStall, name_ + " #" + std::to_string(sequence) + " of " + group_ + " (" +
                                        std::to_string(comm_.size()) + " members) did not complete within " +
                                        std::to_string(static_cast<long>(timeout_)) + " s; not responding: " +
                                        (culprits.empty() ? "none (every member answers; the transport is stuck)" : culprits));
    }

    Communicator& comm_;
    Request operation_;
    std::string name_;
    std::size_t bytes_;
    double timeout_;
    std::vector<std::int64_t>& noted_;
    const std::vector<std::string>& members_;
    const std::string& group_;
    std::unique_ptr<std::int64_t> sequence_;  ///< on the heap: a note may still be sent from it after a stall
    std::vector<Request> notes_;              ///< empty until armed
    Clock::time_point started_;
};

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
    return Request(std::make_unique<GuardedOperation>(inner_, std::move(operation), name, bytes, sequence_,
                                                       timeout_seconds_, noted_, member_names_, group_name_));
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
