// Moves of unstarted ids between nodes (issue 36; the rule is node_moves.hpp's). A dry node's
// claimer asks the claim service (move_kind); the service asks a claimer of the node that will
// finish last, by the loads the nodes reported (ask_tag); that claimer takes the ids out of its
// node under the node's lock and sends them in its answer (given_kind), which the service
// passes on to the dry claimer (reply_tag), who puts them into its own empty slot. An asked
// node answers when one of its claimers next starts a task, claims, or its watcher ticks
// (stop_level()). A claimer that claims no more says so (done_kind) and, until the service
// acknowledges it, answers the asks that crossed its message, so no ask waits on a claimer
// that will never answer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "collectives/claims/work_counters_state.hpp"

namespace shardrun::collectives {
namespace {

constexpr double ns = 1e-9;

}  // namespace

NodeLoad load_of(std::int64_t unstarted, std::int64_t ns_per_id, std::int64_t claimers, std::int64_t pool_numbers)
{
    return {static_cast<std::uint64_t>(std::max<std::int64_t>(unstarted, 0)), static_cast<double>(ns_per_id) * ns,
            std::max<std::int64_t>(claimers, 1), static_cast<std::uint64_t>(std::max<std::int64_t>(pool_numbers, 0))};
}

namespace {

}  // namespace

std::uint64_t WorkCounters::State::pool_numbers() const
{
    const auto end = claim_numbers > 0 ? std::min(shared->end, claim_numbers) : shared->end;
    return end > shared->next ? end - shared->next : 0;
}

void WorkCounters::State::note_own_node()
{
    if (pthread_mutex_trylock(&shared->lock) != 0) return;  // a claimer holds it (maybe waiting on this thread)
    const auto node_load = load();
    pthread_mutex_unlock(&shared->lock);
    nodes[static_cast<std::size_t>(node_id)].load = node_load;
    nodes[static_cast<std::size_t>(node_id)].known = true;
}

bool WorkCounters::State::moves_worth_asking(int sender, std::int64_t ns_per_id) const
{
    const int node = node_of_rank[static_cast<std::size_t>(sender)];
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        if (static_cast<int>(n) == node || nodes[n].active.empty()) continue;
        if (!nodes[n].known || worth_moving(nodes[n].load, static_cast<double>(ns_per_id) * ns)) return true;
    }
    return false;
}

void WorkCounters::State::start_move(PendingMove move)
{
    note_own_node();
    const int thief_node = node_of_rank[static_cast<std::size_t>(move.thief)];
    int victim = -1;
    double latest = 0;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const auto& entry = nodes[n];
        if (static_cast<int>(n) == thief_node || entry.active.empty()) continue;
        if (std::find(move.tried.begin(), move.tried.end(), static_cast<int>(n)) != move.tried.end()) continue;
        // A node not heard from since its last refill may hold a fresh block: asked as if unmeasured.
        const double finish = entry.known ? finish_estimate(entry.load) : std::numeric_limits<double>::infinity();
        if (finish > latest && (!entry.known || worth_moving(entry.load, static_cast<double>(move.ns_per_id) * ns))) {
            latest = finish;
            victim = static_cast<int>(n);
        }
    }
    if (victim < 0) {  // no node holds ids worth moving: the dry claimer is done
        const std::array<std::int64_t, 3> none{0, 0, 0};
        service->send(std::span<const std::int64_t>(none), move.thief, reply_tag);
        return;
    }
    move.tried.push_back(victim);
    const Ask ask{ask_kind, move.thief, move.claimers, move.ns_per_id};
    // Eager (a few bytes); the buffer must outlive the send, so it is a blocking one.
    service->send(std::span<const std::int64_t>(ask), nodes[static_cast<std::size_t>(victim)].active.front(), ask_tag);
    pending.push_back(std::move(move));
}

void WorkCounters::State::take_given(const Message& message)
{
    const auto giver_node = node_of_rank[static_cast<std::size_t>(message[1])];
    const auto thief = static_cast<int>(message[2]);
    auto& entry = nodes[static_cast<std::size_t>(giver_node)];
    entry.load = load_of(message[5], message[6], entry.load.claimers, message[7]);
    entry.known = true;
    const auto it = std::find_if(pending.begin(), pending.end(), [&](const auto& p) { return p.thief == thief; });
    if (it == pending.end()) return;  // cannot happen: one request per claimer at a time
    auto move = std::move(*it);
    pending.erase(it);
    if (message[4] > 0) {
        const std::array<std::int64_t, 3> given{message[3], message[4], 1};
        service->send(std::span<const std::int64_t>(given), thief, reply_tag);
        return;
    }
    start_move(std::move(move));  // that node had none worth moving: the next latest
}

void WorkCounters::State::take_done(int sender)
{
    auto& active = nodes[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(sender)])].active;
    active.erase(std::remove(active.begin(), active.end(), sender), active.end());
    // After every ask sent to it (same tag, same order): it answers those first.
    const Ask ack{ack_kind, 0, 0, 0};
    service->send(std::span<const std::int64_t>(ack), sender, ask_tag);
}

bool WorkCounters::State::answer_asks_locked()
{
    bool acked = false;
    while (!acked && service->iprobe(0, ask_tag)) {
        Ask ask{};
        service->recv(std::span<std::int64_t>(ask), 0, ask_tag);
        if (ask[0] == ack_kind) {
            acked = true;
            continue;
        }
        IdSpan given;
        NodeLoad load;
        {
            const SharedMutexGuard guard(shared->lock);
            // Numbers in the pool count: their blocks are opened here, in the order the node takes them.
            const auto pool_block = [this] { return block_of(shared->next++); };
            given = give_to_dry_node(shared->ids, slots, static_cast<double>(ask[3]) * ns, ask[2],
                                     block_of ? std::function<IdSpan()>(pool_block) : std::function<IdSpan()>(),
                                     block_of ? pool_numbers() : 0);
            load = this->load();
        }
        tell_service({given_kind, service->rank(), ask[1], static_cast<std::int64_t>(given.first),
                      static_cast<std::int64_t>(given.size()), static_cast<std::int64_t>(load.unstarted),
                      std::llround(load.seconds_per_id / ns), static_cast<std::int64_t>(load.pool_numbers)});
    }
    return acked;
}

std::uint64_t WorkCounters::State::move_ids()
{
    double seconds_per_id = 0;
    {
        const SharedMutexGuard guard(shared->lock);
        seconds_per_id = node_seconds_per_id();
    }
    tell_service({move_kind, service->rank(), grant_size, std::llround(seconds_per_id / ns), 0, 0, 0, 0});
    // Poll, not a blocking receive (which spins a core in Open MPI): this rank's node may be
    // asked for ids meanwhile, and answering is up to its claimers.
    auto nap = std::chrono::microseconds(20);
    while (!service->iprobe(0, reply_tag)) {
        {
            std::unique_lock lock(ask_mutex, std::try_to_lock);
            if (lock && !done_sent) answer_asks_locked();
        }
        std::this_thread::sleep_for(nap);
        nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
    std::array<std::int64_t, 3> reply{};
    service->recv(std::span<std::int64_t>(reply), 0, reply_tag);
    if (reply[1] <= 0) {
        const SharedMutexGuard guard(shared->lock);
        shared->no_moves = true;  // no node holds ids worth moving: nor will one later (ids only move)
        return 0;
    }
    const IdSpan given{static_cast<std::uint64_t>(reply[0]), static_cast<std::uint64_t>(reply[0] + reply[1])};
    {
        const SharedMutexGuard guard(shared->lock);
        receive_ids(slots[static_cast<std::size_t>(my_slot)], given);  // empty: only its owner fills it
    }
    moved_in += given.size();
    return given.size();
}

void WorkCounters::State::stop_claiming()
{
    std::lock_guard lock(ask_mutex);
    if (done_sent) return;
    done_sent = true;
    tell_service({done_kind, service->rank(), 0, 0, 0, 0, 0, 0});
    while (!answer_asks_locked()) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

}  // namespace shardrun::collectives
