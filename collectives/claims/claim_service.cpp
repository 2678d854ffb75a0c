#include "collectives/claims/work_counters_state.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace shardrun::collectives {

// Claim numbers for a node of `claimers` whose claimers take `seconds_per_id` (refill_grant()).
std::pair<std::uint64_t, std::uint64_t> WorkCounters::State::grant(int node, std::int64_t claimers, double seconds_per_id,
                                                                   std::uint64_t known_numbers)
{
    std::lock_guard lock(grant_mutex);
    speeds.note(node, claimers, seconds_per_id);
    if (known_numbers > 0) numbers = known_numbers;
    auto count = refill_grant(claimers, seconds_per_id, speeds.mean_seconds_per_id());
    // Never past the last number with ids: a refill after it gets none (and learns whether moves are worth asking).
    if (numbers > 0) count = std::min<std::uint64_t>(count, numbers > next_grant ? numbers - next_grant : 0);
    const auto first = next_grant;
    next_grant += count;
    return {first, count};
}

// The node's claimers' mean measured time per id (0 when none has one), with the node's lock held.
double WorkCounters::State::node_seconds_per_id() const
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

void WorkCounters::State::add_shared(const ProgressCounts& delta)
{
    shared->ok += delta.ok;
    shared->failed += delta.failed;
    shared->running += delta.running;
    shared->interrupted += delta.interrupted;
}

// A pool runs dry: take the next grant of claim numbers for this node.
void WorkCounters::State::refill()
{
    std::pair<std::uint64_t, std::uint64_t> granted;
    const double seconds_per_id = node_seconds_per_id();
    if (service->rank() == 0) {
        granted = grant(0, grant_size, seconds_per_id, claim_numbers);
    } else {
        // Nanoseconds per id, so the message stays integers.
        // A reply that came well within the service's burst window (its answer says how long): it
        // is still looking, no need to wake it.
        const bool awake = std::chrono::steady_clock::now() - last_reply < service_window / 2;
        tell_service({refill_kind, service->rank(), grant_size, std::llround(seconds_per_id * 1e9), 0,
                      static_cast<std::int64_t>(claim_numbers), 0, 0}, !awake);
        Reply reply{};
        service->recv(std::span<std::int64_t>(reply), 0, reply_tag);
        last_reply = std::chrono::steady_clock::now();
        service_window = std::chrono::nanoseconds(reply[3]);
        granted = {static_cast<std::uint64_t>(reply[0]), static_cast<std::uint64_t>(reply[1])};
        if (granted.second == 0 && reply[2] == 0) shared->no_moves = true;
    }
    shared->next = granted.first;
    shared->end = granted.first + granted.second;
    ++shared->refills;
}

// Rank 0, once some rank asked to drain or stop: one notice per level to every other rank
// (they take it in stop_level()); its own node already sees the level.
void WorkCounters::State::tell_stop()
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

void WorkCounters::State::tell_service(const Message& message, bool ring)
{
    service->send(std::span<const std::int64_t>(message), 0, service_tag);
    if (ring) doorbell->ring();  // after the send: the service that wakes finds the message arriving
}

// Sleeps in the kernel between messages (the doorbell), so it takes no CPU from rank 0's tasks
// while idle and is woken, not found by a nap's end, when a message comes. The naps that back
// off from 20 us to 1 ms remain as the timeout: they find a message whose ring was lost (or all
// of them, without a doorbell) as before. After each message it keeps looking for as long as
// the next refill of a burst takes to come on this transport (BurstWindow: at least a wake-up's
// cost, at most 250 us), so a burst of refills is answered at a bare round trip's pace.
void WorkCounters::State::serve()
{
    constexpr auto shortest_nap = std::chrono::microseconds(20), longest_nap = std::chrono::microseconds(1000);
    // A ring may overtake its message (another network path): look for it this long before sleeping again.
    constexpr auto arrival_window = std::chrono::microseconds(50);
    // About what sleeping and being woken costs here (ppoll, a datagram, the scheduler). None
    // without a doorbell: then the service is what it was before it (SHARDRUN_CLAIM_DOORBELL=0).
    const bool look_after = doorbell->enabled();
    BurstWindow burst;
    std::vector<std::chrono::steady_clock::time_point> answered(static_cast<std::size_t>(service->size()));
    // Rank 0's own final too: its claimer may ask for moved ids after every other rank is done.
    int finals_left = service->size();
    Message message{};
    auto request = service->irecv(std::span<std::int64_t>(message), any_source, service_tag);
    auto nap = std::chrono::duration_cast<std::chrono::nanoseconds>(shortest_nap);
    auto look_until = std::chrono::steady_clock::time_point{};
    while (finals_left > 0 && !abandon.load()) {
        if (!request.test()) {
            tell_stop();
            if (std::chrono::steady_clock::now() < look_until) continue;
            if (doorbell->wait(nap)) {
                look_until = std::chrono::steady_clock::now() + arrival_window;
            } else {
                nap = std::min<std::chrono::nanoseconds>(nap * 2, longest_nap);
            }
            continue;
        }
        nap = shortest_nap;
        const auto came = std::chrono::steady_clock::now();
        const auto sender = static_cast<int>(message[1]);
        if (message[0] == refill_kind) {
            auto& last = answered[static_cast<std::size_t>(sender)];
            if (last.time_since_epoch().count() != 0) burst.note_gap(came - last);
            const auto window = look_after ? burst.window() : BurstWindow::Duration(0);
            // Its pool is refilled now and a block opened: what it holds is unknown until it next reports.
            nodes[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(sender)])].known = false;
            const auto [first, count] = grant(sender, message[2], static_cast<double>(message[3]) * 1e-9,
                                              static_cast<std::uint64_t>(message[5]));
            // None left: whether the node, once dry, should ask for ids of another node at all.
            const std::int64_t worth = count == 0 && moves_worth_asking(sender, message[3]) ? 1 : 0;
            const Reply reply{static_cast<std::int64_t>(first), static_cast<std::int64_t>(count), worth, window.count()};
            service->send(std::span<const std::int64_t>(reply), sender, reply_tag);
            last = std::chrono::steady_clock::now();
        } else if (message[0] == progress_kind) {
            add_shared({message[2], message[3], message[4], message[5]});
            auto& entry = nodes[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(sender)])];
            if (message[6] >= 0) {
                entry.load = load_of(message[6], message[7], entry.load.claimers, message[8]);
                entry.known = true;
            }
        } else if (message[0] == move_kind) {
            start_move({sender, message[2], message[3], {}});
        } else if (message[0] == given_kind) {
            take_given(message);
        } else if (message[0] == done_kind) {
            take_done(sender);
        } else if (message[0] == final_kind) {
            --finals_left;
        } else if (message[0] == outcome_kind) {
            add_outcome_shared(message[2] != 0, static_cast<std::int32_t>(message[3]));
        } else if (message[0] == spend_kind) {
            add_spend_shared({message[2], message[3], message[4]});
        } else if (message[0] == stop_kind) {
            raise_level(shared->stop, static_cast<std::int32_t>(message[2]));
        }
        look_until = std::chrono::steady_clock::now() + (look_after ? burst.window() : BurstWindow::Duration(0));
        tell_stop();
        if (finals_left > 0) request = service->irecv(std::span<std::int64_t>(message), any_source, service_tag);
    }
}

}  // namespace shardrun::collectives
