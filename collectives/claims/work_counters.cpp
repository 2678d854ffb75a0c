#include "collectives/claims/work_counters.hpp"

#include <pthread.h>

#include <array>
#include <atomic>
#include <chrono>
#include <limits>
#include <mutex>
#include <new>
#include <thread>

#include "collectives/claims/claim_policy.hpp"
#include "collectives/claims/node_segment.hpp"

namespace shardrun::collectives {
namespace {

/** What the members of one node share. */
struct NodeShared {
    pthread_mutex_t lock;
    std::uint64_t next;  ///< next claim number of the pool (under lock)
    std::uint64_t end;   ///< end of the pool (under lock)
    std::uint64_t refills;
    std::atomic<std::int64_t> ok, failed, running;
    std::atomic<std::int32_t> stop;
    std::atomic<std::int32_t> drain;
};

enum MessageKind : std::int64_t { refill_kind = 1, progress_kind = 2, final_kind = 3, stop_kind = 4, drain_kind = 5 };
constexpr int service_tag = 71;
constexpr int reply_tag = 72;
constexpr int stop_tag = 73;
constexpr int drain_tag = 74;
using Message = std::array<std::int64_t, 5>;  // kind, sender, three values

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
    bool several_nodes = false;
    bool on_service_node = false;  // progress goes straight to shared memory
    std::int64_t grant_size = 1;
    // World rank 0 only: the claim service.
    std::mutex grant_mutex;
    std::uint64_t next_grant = 0;
    std::thread thread;
    std::atomic<bool> abandon{false};
    bool finished = false;
    std::mutex stop_mutex;  // one thread of a rank at a time sends or takes stop messages
    bool stop_sent = false;   // this rank told the service
    bool stop_told = false;   // rank 0: the service told every rank
    bool drain_sent = false, drain_told = false;  // the same for drain

    std::uint64_t grant(std::uint64_t count)
    {
        std::lock_guard lock(grant_mutex);
        const auto first = next_grant;
        next_grant += count;
        return first;
    }

    void add_shared(std::int64_t ok, std::int64_t failed, std::int64_t running)
    {
        shared->ok += ok;
        shared->failed += failed;
        shared->running += running;
    }

    // A pool runs dry: take the next grant of claim numbers for this node.
    void refill()
    {
        std::uint64_t first = 0;
        if (service->rank() == 0) {
            first = grant(static_cast<std::uint64_t>(grant_size));
        } else {
            const Message request{refill_kind, service->rank(), grant_size, 0, 0};
            service->send(std::span<const std::int64_t>(request), 0, service_tag);
            std::int64_t reply = 0;
            service->recv(std::span<std::int64_t>(&reply, 1), 0, reply_tag);
            first = static_cast<std::uint64_t>(reply);
        }
        shared->next = first;
        shared->end = first + static_cast<std::uint64_t>(grant_size);
        ++shared->refills;
    }

    // Rank 0, once some rank asked to stop: one notice to every other rank (they take it in
    // stop_requested()); its own node already sees the flag.
    void tell_stop()
    {
        tell(stop_told, shared->stop, stop_tag);
        tell(drain_told, shared->drain, drain_tag);
    }

    void tell(bool& told, const std::atomic<std::int32_t>& flag, int tag)
    {
        if (told || flag.load() == 0) return;
        told = true;
        static const std::int64_t notice = 1;
        for (int r = 1; r < service->size(); ++r) {
            service->isend(std::span<const std::int64_t>(&notice, 1), r, tag).abandon();  // eager, a few bytes
        }
    }

    // Another rank: raises `flag` and, off rank 0, tells the service once.
    void ask(bool& sent, std::atomic<std::int32_t>& flag, MessageKind kind)
    {
        flag.store(1);
        if (!several_nodes || service->rank() == 0) return;
        std::lock_guard lock(stop_mutex);
        if (sent || finished) return;
        sent = true;
        const Message message{kind, service->rank(), 0, 0, 0};
        service->send(std::span<const std::int64_t>(message), 0, service_tag);
    }

    // True once `flag` is up here, or rank 0's notice on `tag` arrived (then raises it).
    bool asked(std::atomic<std::int32_t>& flag, int tag)
    {
        if (flag.load() != 0) return true;
        if (!several_nodes || service->rank() == 0) return false;
        std::lock_guard lock(stop_mutex);
        if (finished || !service->iprobe(0, tag)) return false;
        std::int64_t notice = 0;
        service->recv(std::span<std::int64_t>(&notice, 1), 0, tag);
        flag.store(1);
        return true;
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
                const auto first = static_cast<std::int64_t>(grant(static_cast<std::uint64_t>(message[2])));
                service->send(std::span<const std::int64_t>(&first, 1), sender, reply_tag);
            } else if (message[0] == progress_kind) {
                add_shared(message[2], message[3], message[4]);
            } else if (message[0] == final_kind) {
                --finals_left;
            } else if (message[0] == stop_kind) {
                shared->stop.store(1);
            } else if (message[0] == drain_kind) {
                shared->drain.store(1);
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
    s.segment = std::make_unique<NodeSegment>(node, sizeof(NodeShared));
    s.shared = static_cast<NodeShared*>(s.segment->data());
    if (node.rank() == 0) {
        auto* shared = new (s.shared) NodeShared{};
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

void WorkCounters::add_progress(const ProgressCounts& delta)
{
    auto& s = *state_;
    if (s.on_service_node) {
        s.add_shared(delta.ok, delta.failed, delta.running);
        return;
    }
    const Message message{progress_kind, s.service->rank(), delta.ok, delta.failed, delta.running};
    s.service->send(std::span<const std::int64_t>(message), 0, service_tag);
}

ProgressCounts WorkCounters::read_progress() const
{
    const auto& shared = *state_->shared;
    return {shared.ok.load(), shared.failed.load(), shared.running.load()};
}

std::uint64_t WorkCounters::refills() const
{
    const SharedMutexGuard guard(state_->shared->lock);
    return state_->shared->refills;
}

void WorkCounters::request_stop() { state_->ask(state_->stop_sent, state_->shared->stop, stop_kind); }

bool WorkCounters::stop_requested() { return state_->asked(state_->shared->stop, stop_tag); }

void WorkCounters::request_drain() { state_->ask(state_->drain_sent, state_->shared->drain, drain_kind); }

bool WorkCounters::drain_requested() { return state_->asked(state_->shared->drain, drain_tag); }

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
        const Message message{final_kind, s.service->rank(), 0, 0, 0};
        s.service->send(std::span<const std::int64_t>(message), 0, service_tag);
    } else {
        s.thread.join();
    }
}

}  // namespace shardrun::collectives
