#include "collectives/guarded_operation.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "collectives/stall_guard.hpp"

namespace shardrun::collectives {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int note_tag = 94;
constexpr int ping_tag = 95;
constexpr int pong_tag = 96;
constexpr double ping_grace_seconds = 3.0;
constexpr double arm_after_seconds = 1.0;

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

Request guarded_operation(Communicator& comm, Request operation, const char* name, std::size_t bytes,
                          std::int64_t sequence, double timeout, std::vector<std::int64_t>& noted,
                          const std::vector<std::string>& members, const std::string& group)
{
    return Request(std::make_unique<GuardedOperation>(comm, std::move(operation), name, bytes, sequence, timeout, noted,
                                                      members, group));
}

}  // namespace shardrun::collectives
