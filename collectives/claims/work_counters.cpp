#include "collectives/claims/work_counters.hpp"

#include <pthread.h>

#include <array>
#include <cmath>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <new>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "collectives/claims/claim_policy.hpp"
#include "collectives/claims/node_segment.hpp"
#include "base/error.hpp"

namespace shardrun::collectives {
namespace {

/** What the members of one node share. */
struct NodeShared {
    pthread_mutex_t lock;
    std::uint64_t next;  ///< next claim number of the pool (under lock)
    std::uint64_t end;   ///< end of the pool (under lock)
    std::uint64_t refills;
    std::atomic<std::int64_t> ok, failed, running, interrupted;
    std::atomic<std::int32_t> stop;  ///< a StopLevel
    NodeIds ids;  ///< claimed ids no slot holds yet (under lock); the claimers' slots follow this struct
};

enum MessageKind : std::int64_t { refill_kind = 1, progress_kind = 2, final_kind = 3, stop_kind = 4 };
constexpr int service_tag = 71;
constexpr int reply_tag = 72;
constexpr int stop_tag = 73;
using Message = std::array<std::int64_t, 6>;  // kind, sender, four values

// Raises `level` to at least `wanted`; levels never fall.
void raise_level(std::atomic<std::int32_t>& level, std::int32_t wanted)
{
    auto current = level.load();
    while (current < wanted && !level.compare_exchange_weak(current, wanted)) {
    }
}

/** Holds the node's process-shared mutex for a scope (pthread's, which std::lock_guard cannot take). */
class SharedMutexGuard {
public:
    explicit SharedMutexGuard(pthread_mutex_t& mutex) : mutex_(mutex) { pthread_mutex_lock(&mutex_); }
    ~SharedMutexGuard() { pthread_mutex_unlock(&mutex_); }
    SharedMutexGuard(const SharedMutexGuard&) = delete;
    SharedMutexGuard& operator=(const SharedMutexGuard&) = delete;

private:
    pthread_mutex_t& mutex_;
};

}  // namespace

struct WorkCounters::State {
    std::unique_ptr<Communicator> service;  // private copy of world: no other traffic matches its tags
    std::unique_ptr<NodeSegment> segment;
    NodeShared* shared = nullptr;
    std::span<ClaimSlot> slots;  // every claimer's of this node, after NodeShared in the segment
    int my_slot = -1;            // this rank's, when it claims
    bool several_nodes = false;
    bool on_service_node = false;  // progress goes straight to shared memory
    std::int64_t grant_size = 1;  // the node's claimers (at least 1): what a refill asks for at most
    // World rank 0 only: the claim service.
    std::mutex grant_mutex;
    std::uint64_t next_grant = 0;
    std::thread thread;
    std::atomic<bool> abandon{false};
    bool finished = false;
    std::mutex stop_mutex;  // one thread of a rank at a time sends or takes stop messages
    std::int32_t stop_sent = 0;   // the highest level this rank told the service
    std::int32_t stop_told = 0;   // rank 0: the highest level the service told every rank

    NodeSpeeds speeds;  // under grant_mutex

    // Claim numbers for a node of `claimers` whose claimers take `seconds_per_id` (refill_grant()).
    std::pair<std::uint64_t, std::uint64_t> grant(int node, std::int64_t claimers, double seconds_per_id)
    {
        std::lock_guard lock(grant_mutex);
        speeds.note(node, claimers, seconds_per_id);
        const auto count = refill_grant(claimers, seconds_per_id, speeds.mean_seconds_per_id());
        const auto first = next_grant;
        next_grant += count;
        return {first, count};
    }

    // The node's claimers' mean measured time per id (0 when none has one), with the node's lock held.
    double node_seconds_per_id() const
    {
        double sum = 0;
        int known = 0;
        for (const auto& slot : slots) {
            if (slot.seconds_per_id <= 0) continue;
            sum += slot.seconds_per_id;
            ++known;
        }
        return known > 0 ? sum / known : 0.0;
    }

    void add_shared(const ProgressCounts& delta)
    {
        shared->ok += delta.ok;
        shared->failed += delta.failed;
        shared->running += delta.running;
        shared->interrupted += delta.interrupted;
    }

    // A pool runs dry: take the next grant of claim numbers for this node.
    void refill()
    {
        std::pair<std::uint64_t, std::uint64_t> granted;
        const double seconds_per_id = node_seconds_per_id();
        if (service->rank() == 0) {
            granted = grant(0, grant_size, seconds_per_id);
        } else {
            // Nanoseconds per id, so the message stays integers.
            const Message request{refill_kind, service->rank(), grant_size, std::llround(seconds_per_id * 1e9), 0, 0};
            service->send(std::span<const std::int64_t>(request), 0, service_tag);
            std::array<std::int64_t, 2> reply{};
            service->recv(std::span<std::int64_t>(reply), 0, reply_tag);
            granted = {static_cast<std::uint64_t>(reply[0]), static_cast<std::uint64_t>(reply[1])};
        }
        shared->next = granted.first;
        shared->end = granted.first + granted.second;
        ++shared->refills;
    }

    // Rank 0, once some rank asked to drain or stop: one notice per level to every other rank
    // (they take it in stop_level()); its own node already sees the level.
    void tell_stop()
    {
        const auto level = shared->stop.load();
        if (level <= stop_told) return;
        stop_told = level;
        // isend reads its buffer later: one constant per level outlives the send.
        static const std::array<std::int64_t, 3> notices{0, 1, 2};
        for (int r = 1; r < service->size(); ++r) {
            service->isend(std::span<const std::int64_t>(&notices[static_cast<std::size_t>(level)], 1), r, stop_tag)
                .abandon();  // eager, a few bytes
        }
    }

    void serve()
    {
        int finals_left = service->size() - 1;
        Message message{};
        auto request = service->irecv(std::span<std::int64_t>(message), any_source, service_tag);
        auto nap = std::chrono::microseconds(20);
        while (finals_left > 0 && !abandon.load()) {
            if (!request.test()) {
                tell_stop();
                std::this_thread::sleep_for(nap);
                nap = std::min(nap * 2, std::chrono::microseconds(1000));
                continue;
            }
            nap = std::chrono::microseconds(20);
            const auto sender = static_cast<int>(message[1]);
            if (message[0] == refill_kind) {
                const auto [first, count] = grant(sender, message[2], static_cast<double>(message[3]) * 1e-9);
                const std::array<std::int64_t, 2> reply{static_cast<std::int64_t>(first), static_cast<std::int64_t>(count)};
                service->send(std::span<const std::int64_t>(reply), sender, reply_tag);
            } else if (message[0] == progress_kind) {
                add_shared({message[2], message[3], message[4], message[5]});
            } else if (message[0] == final_kind) {
                --finals_left;
            } else if (message[0] == stop_kind) {
                raise_level(shared->stop, static_cast<std::int32_t>(message[2]));
            }
            tell_stop();
            if (finals_left > 0) request = service->irecv(std::span<std::int64_t>(message), any_source, service_tag);
        }
    }
};

WorkCounters::WorkCounters(Communicator& world, Communicator& node, bool claims) : state_(std::make_shared<State>())
{
    auto& s = *state_;
    s.service = world.split(0, world.rank());
    const int node_leaders = world.allreduce_value<std::int32_t>(node.rank() == 0 ? 1 : 0, ReduceOp::sum);
    s.several_nodes = node_leaders > 1;
    s.on_service_node = node.allreduce_value<std::int32_t>(world.rank() == 0 ? 1 : 0, ReduceOp::max) != 0;
    s.grant_size = static_cast<std::int64_t>(refill_grant(node.allreduce_value<std::int64_t>(claims ? 1 : 0, ReduceOp::sum)));
    // Each claimer's slot index on the node: how many claimers come before it.
    std::vector<std::int32_t> claimer_flags(static_cast<std::size_t>(node.size()));
    const std::int32_t mine = claims ? 1 : 0;
    node.allgather(std::span<const std::int32_t>(&mine, 1), std::span<std::int32_t>(claimer_flags));
    const auto before = std::accumulate(claimer_flags.begin(), claimer_flags.begin() + node.rank(), 0);
    const auto claimers = std::accumulate(claimer_flags.begin(), claimer_flags.end(), 0);
    if (claims) s.my_slot = before;
    s.segment = std::make_unique<NodeSegment>(node, sizeof(NodeShared) + sizeof(ClaimSlot) * static_cast<std::size_t>(claimers));
    s.shared = static_cast<NodeShared*>(s.segment->data());
    s.slots = std::span<ClaimSlot>(reinterpret_cast<ClaimSlot*>(s.shared + 1), static_cast<std::size_t>(claimers));
    if (node.rank() == 0) {
        auto* shared = new (s.shared) NodeShared{};
        for (auto& slot : s.slots) new (&slot) ClaimSlot{};
        pthread_mutexattr_t attributes;
        pthread_mutexattr_init(&attributes);
        pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
        pthread_mutex_init(&shared->lock, &attributes);
        pthread_mutexattr_destroy(&attributes);
        // One node: the pool is every claim number there is, and no service is needed.
        shared->end = s.several_nodes ? 0 : std::numeric_limits<std::uint64_t>::max();
    }
    node.barrier();
    if (s.several_nodes && world.rank() == 0) s.thread = std::thread([state = state_] { state->serve(); });
}

WorkCounters::~WorkCounters()
{
    if (!state_->thread.joinable()) return;
    if (state_->finished) {
        state_->thread.join();
    } else {
        // Unwinding from an error: the other ranks will not send their finals; main() aborts.
        state_->abandon.store(true);
        state_->thread.detach();
    }
}

std::uint64_t WorkCounters::next_claim()
{
    auto& s = *state_;
    const SharedMutexGuard guard(s.shared->lock);
    if (s.shared->next >= s.shared->end) s.refill();
    return s.shared->next++;
}

std::uint64_t WorkCounters::claim_ids(std::uint64_t want, double seconds_per_id, const ClaimBlocks& block_of)
{
    auto& s = *state_;
    if (s.my_slot < 0) SHARDRUN_THROW(Error, "claim_ids on a rank constructed as no claimer");
    const SharedMutexGuard guard(s.shared->lock);
    auto& slot = s.slots[static_cast<std::size_t>(s.my_slot)];
    slot.seconds_per_id = seconds_per_id;
    if (slot.next < slot.end) return slot.end - slot.next;
    const auto next_block = [&] {
        if (s.shared->next >= s.shared->end) s.refill();
        const auto block = block_of(s.shared->next++);
        return block;
    };
    return fill_slot(s.shared->ids, s.slots, static_cast<std::size_t>(s.my_slot), want, next_block);
}

std::optional<std::uint64_t> WorkCounters::take_id()
{
    auto& s = *state_;
    if (s.my_slot < 0) return std::nullopt;
    const SharedMutexGuard guard(s.shared->lock);
    return take_from_slot(s.slots[static_cast<std::size_t>(s.my_slot)]);
}

IdSpan WorkCounters::release_ids()
{
    auto& s = *state_;
    if (s.my_slot < 0) return {};
    const SharedMutexGuard guard(s.shared->lock);
    auto& slot = s.slots[static_cast<std::size_t>(s.my_slot)];
    const IdSpan rest{slot.next, slot.end};
    slot.next = slot.end;
    return rest;
}

std::uint64_t WorkCounters::taken_back() const
{
    const SharedMutexGuard guard(state_->shared->lock);
    return state_->shared->ids.taken_back;
}

void WorkCounters::add_progress(const ProgressCounts& delta)
{
    auto& s = *state_;
    if (s.on_service_node) {
        s.add_shared(delta);
        return;
    }
    const Message message{progress_kind, s.service->rank(), delta.ok, delta.failed, delta.running, delta.interrupted};
    s.service->send(std::span<const std::int64_t>(message), 0, service_tag);
}

ProgressCounts WorkCounters::read_progress() const
{
    const auto& shared = *state_->shared;
    return {shared.ok.load(), shared.failed.load(), shared.running.load(), shared.interrupted.load()};
}

std::uint64_t WorkCounters::refills() const
{
    const SharedMutexGuard guard(state_->shared->lock);
    return state_->shared->refills;
}

void WorkCounters::request_stop(StopLevel level)
{
    auto& s = *state_;
    const auto wanted = static_cast<std::int32_t>(level);
    raise_level(s.shared->stop, wanted);
    if (!s.several_nodes || s.service->rank() == 0) return;
    std::lock_guard lock(s.stop_mutex);
    if (s.stop_sent >= wanted || s.finished) return;
    s.stop_sent = wanted;
    const Message message{stop_kind, s.service->rank(), wanted, 0, 0, 0};
    s.service->send(std::span<const std::int64_t>(message), 0, service_tag);
}

StopLevel WorkCounters::stop_level()
{
    auto& s = *state_;
    if (s.several_nodes && s.service->rank() != 0) {
        // Take in every notice the service sent (one per level it reached).
        std::lock_guard lock(s.stop_mutex);
        while (!s.finished && s.service->iprobe(0, stop_tag)) {
            std::int64_t notice = 0;
            s.service->recv(std::span<std::int64_t>(&notice, 1), 0, stop_tag);
            raise_level(s.shared->stop, static_cast<std::int32_t>(notice));
        }
    }
    return static_cast<StopLevel>(s.shared->stop.load());
}

void WorkCounters::finish()
{
    auto& s = *state_;
    {
        std::lock_guard lock(s.stop_mutex);
        if (s.finished) return;
        s.finished = true;
    }
    if (!s.several_nodes) return;
    if (s.service->rank() != 0) {
        const Message message{final_kind, s.service->rank(), 0, 0, 0, 0};
        s.service->send(std::span<const std::int64_t>(message), 0, service_tag);
    } else {
        s.thread.join();
    }
}

}  // namespace shardrun::collectives
