#include "collectives/claims/work_counters.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <new>
#include <numeric>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "collectives/claims/work_counters_state.hpp"

namespace shardrun::collectives {

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
        shared->leading_code = no_code;
    }
    node.barrier();
    if (s.several_nodes) {
        const char* doorbell = std::getenv("SHARDRUN_CLAIM_DOORBELL");
        s.doorbell = std::make_unique<ClaimDoorbell>(world, doorbell == nullptr || std::string_view(doorbell) != "0");
    }
    // Who claims on which node (a node is named by its lowest world rank): the service asks
    // nodes for ids through their claimers.
    s.node_id = node.allreduce_value<std::int32_t>(world.rank(), ReduceOp::min);
    if (s.several_nodes) {
        const std::array<std::int32_t, 2> place{s.node_id, claims ? 1 : 0};
        std::vector<std::int32_t> places(2 * static_cast<std::size_t>(world.size()));
        world.allgather(std::span<const std::int32_t>(place), std::span<std::int32_t>(places));
        if (world.rank() == 0) {
            s.nodes.resize(static_cast<std::size_t>(world.size()));
            s.node_of_rank.resize(static_cast<std::size_t>(world.size()));
            for (int r = 0; r < world.size(); ++r) {
                const auto n = places[2 * static_cast<std::size_t>(r)];
                s.node_of_rank[static_cast<std::size_t>(r)] = n;
                if (places[2 * static_cast<std::size_t>(r) + 1] != 0) s.nodes[static_cast<std::size_t>(n)].active.push_back(r);
            }
            for (auto& entry : s.nodes) entry.load.claimers = std::max<std::int64_t>(1, static_cast<std::int64_t>(entry.active.size()));
        }
    }
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
        state_->doorbell->ring();
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
    answer_asks();
    {
        const SharedMutexGuard guard(s.shared->lock);
        auto& slot = s.slots[static_cast<std::size_t>(s.my_slot)];
        slot.seconds_per_id = seconds_per_id;
        s.block_of = block_of;  // to open a pool number's block when another node asks for ids
        if (slot.next < slot.end) return slot.end - slot.next;
        const auto next_block = [&] {
            if (s.shared->next >= s.shared->end) s.refill();
            const auto block = block_of(s.shared->next++);
            return block;
        };
        const auto got = fill_slot(s.shared->ids, s.slots, static_cast<std::size_t>(s.my_slot), want, next_block);
        if (got > 0 || !s.several_nodes || s.shared->no_moves) return got;
    }
    // This node is dry: ids of the node that will finish last (node_moves.hpp), without the lock.
    return s.move_ids();
}

void WorkCounters::answer_asks()
{
    auto& s = *state_;
    if (!s.several_nodes || s.my_slot < 0) return;
    std::unique_lock lock(s.ask_mutex, std::try_to_lock);
    if (lock && !s.done_sent) s.answer_asks_locked();
}

void WorkCounters::stop_claiming()
{
    auto& s = *state_;
    if (s.several_nodes && s.my_slot >= 0) s.stop_claiming();
}

void WorkCounters::set_claim_numbers(std::uint64_t numbers) { state_->claim_numbers = numbers; }

std::uint64_t WorkCounters::moved_in() const { return state_->moved_in.load(); }

std::optional<std::uint64_t> WorkCounters::take_id()
{
    auto& s = *state_;
    if (s.my_slot < 0) return std::nullopt;
    answer_asks();
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
    // With the node's load, which the service reads to choose whom to ask for ids (-1: none known).
    std::int64_t unstarted = -1, ns_per_id = 0, pool_numbers = 0;
    if (s.my_slot >= 0) {
        const SharedMutexGuard guard(s.shared->lock);
        const auto load = s.load();
        unstarted = static_cast<std::int64_t>(load.unstarted);
        ns_per_id = std::llround(load.seconds_per_id * 1e9);
        pool_numbers = static_cast<std::int64_t>(load.pool_numbers);
    }
    s.tell_service({progress_kind, s.service->rank(), delta.ok, delta.failed, delta.running, delta.interrupted, unstarted,
                    ns_per_id, pool_numbers});
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
    if (!s.several_nodes) return;
    if (s.service->rank() == 0) {
        s.doorbell->ring();  // the service tells every rank now, not when its nap ends
        return;
    }
    std::lock_guard lock(s.stop_mutex);
    if (s.stop_sent >= wanted || s.finished) return;
    s.stop_sent = wanted;
    s.tell_service({stop_kind, s.service->rank(), wanted, 0, 0, 0});
}

StopLevel WorkCounters::stop_level()
{
    auto& s = *state_;
    answer_asks();  // the watcher's tick: a node whose tasks are long answers within it
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
    stop_claiming();
    s.tell_service({final_kind, s.service->rank(), 0, 0, 0, 0});
    if (s.service->rank() == 0) s.thread.join();
}

}  // namespace shardrun::collectives
