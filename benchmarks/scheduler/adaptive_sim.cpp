// The runner's claims since issues 25 and 36, simulated: per task, as the runner's
// DynamicSource, a rank takes the next id of its slot; when the slot is empty it claims
// adaptive_claim() ids into it through fill_slot(), whose fresh blocks come through the claim
// path (pool, refills); a node that runs dry asks the claim service for ids of the node that
// will finish last (collectives::give_to_dry_node), which answers at its next poll; a rank that
// gets none is done. A node may stop answering mid-run (Cluster::dead_node): the service learns
// it from its silence, dead_after later, and hands the ids it held or was running to the next
// dry nodes.
#include "adaptive_sim.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <span>

#include "claim_path.hpp"
#include "collectives/claims/node_moves.hpp"
#include "runner/placement/placement.hpp"

namespace shardrun::bench::scheduler {
namespace {

using Ready = std::priority_queue<std::pair<double, int>, std::vector<std::pair<double, int>>, std::greater<>>;
constexpr int detect_event = -1;  // the service concludes the dead node is gone

class AdaptiveRun {
public:
    AdaptiveRun(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                const ClaimCosts& costs, const std::vector<std::uint64_t>& starts)
        : durations_(durations), cluster_(cluster), schedule_(schedule), costs_(costs), starts_(starts),
          per_node_(std::max(1, std::min(cluster.ranks_per_node, cluster.ranks))), path_(cluster, costs, starts.size() - 1),
          nodes_(static_cast<std::size_t>((cluster.ranks + per_node_ - 1) / per_node_)),
          slots_(static_cast<std::size_t>(cluster.ranks)), seconds_per_task_(slots_.size(), 0.0),
          running_(slots_.size(), none), next_event_(slots_.size(), 0.0)
    {
        if (cluster.dead_node >= 0 && static_cast<std::size_t>(cluster.dead_node) < nodes_.size() && nodes_.size() > 1) {
            dead_ = static_cast<std::size_t>(cluster.dead_node);
            ready_.emplace(cluster.dead_at + costs.dead_after, detect_event);
        }
    }

    SimResult run()
    {
        for (int r = 0; r < cluster_.ranks; ++r) ready_.emplace(0.0, r);
        while (!ready_.empty()) {
            const double t = ready_.top().first;
            const int rank = ready_.top().second;
            ready_.pop();
            if (rank == detect_event) {
                detect_dead(t);
                continue;
            }
            step(t, static_cast<std::size_t>(rank));
        }
        result_.refills = path_.refills();
        result_.service_busy = path_.service_busy();
        for (const auto& node : nodes_) result_.taken_back += node.taken_back;
        return result_;
    }

private:
    static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();

    std::size_t node_of(std::size_t rank) const { return rank / static_cast<std::size_t>(per_node_); }
    std::span<collectives::ClaimSlot> node_slots(std::size_t node)
    {
        const auto first = node * static_cast<std::size_t>(per_node_);
        return std::span(slots_).subspan(first, std::min(slots_.size() - first, static_cast<std::size_t>(per_node_)));
    }
    bool dead(std::size_t node, double t) const { return dead_ == node && t >= cluster_.dead_at; }

    void step(double t, std::size_t r)
    {
        const auto node = node_of(r);
        if (dead(node, t)) return;  // its task never ends; the service reruns it once it knows
        if (running_[r] != none) {  // the task this rank ran has ended
            const auto id = running_[r];
            const double took = durations_.at(id) * cluster_.slowdown_of(static_cast<int>(r));
            ++result_.tasks;
            result_.busy += durations_.at(id);
            seconds_per_task_[r] = seconds_per_task_[r] == 0 ? took : 0.7 * seconds_per_task_[r] + 0.3 * took;
            running_[r] = none;
        }
        double at = t + costs_.local_take;
        auto id = collectives::take_from_slot(slots_[r]);
        if (!id) {
            if (!claim(r, at)) return;
            if (slots_[r].next >= slots_[r].end) {  // the service holds the answer until the dead node is known gone
                ready_.emplace(at, static_cast<int>(r));
                next_event_[r] = at;
                return;
            }
            ++result_.claims;
            id = collectives::take_from_slot(slots_[r]);
        }
        running_[r] = *id;
        const double took = durations_.at(*id) * cluster_.slowdown_of(static_cast<int>(r));
        next_event_[r] = at + took + costs_.per_task;
        ready_.emplace(next_event_[r], static_cast<int>(r));
    }

    // Fills rank r's empty slot; false when the rank is done (its wall noted). `at` advances.
    bool claim(std::size_t r, double& at)
    {
        const auto node = node_of(r);
        const auto slots = node_slots(node);
        const auto first_slot = node * static_cast<std::size_t>(per_node_);
        bool used_up_now = false;  // this claim's refill found the numbers used up: it was the move request too
        const auto next_block = [&] {
            std::uint64_t number = 0;
            const auto refills = path_.refills();
            at = path_.take(static_cast<int>(r), at, number, collectives::node_load(nodes_[node], slots).seconds_per_id);
            const auto blocks = starts_.size() - 1;
            used_up_now = number >= blocks && path_.refills() > refills;
            return number < blocks ? collectives::IdSpan{starts_[number], starts_[number + 1]} : collectives::IdSpan{};
        };
        const auto want = placement::adaptive_claim(seconds_per_task_[r], 1, schedule_.span, schedule_.min_claim,
                                                    schedule_.max_claim);
        slots_[r].seconds_per_id = seconds_per_task_[r];
        const auto got = collectives::fill_slot(nodes_[node], slots, r - first_slot, want, next_block);
        const bool across = schedule_.across_nodes && nodes_.size() > 1;
        // The refill that found the claim numbers used up (the service knows how many there are)
        // says too whether any node holds ids worth moving; when none does, no claimer of this
        // node asks the service again. A lost node's ids waiting to be rerun are worth asking for.
        // As in the runner, the refill tells the service its node's mean time per id, as a move request does.
        if (across && used_up_now && orphans_.empty() &&
            find_victim(node, collectives::node_load(nodes_[node], slots).seconds_per_id) == nodes_.size() &&
            !undetected_dead(at)) {
            no_moves_[node] = true;
        }
        if (got > 0) return true;
        if (across && !no_moves_[node] && move_to(r, at)) return true;
        result_.wall = std::max(result_.wall, at);  // the rank learns there is no more work and stops
        return false;
    }

    // Node r's is dry: one request to the service, which asks the node that will finish last.
    // True when the slot got ids, or the rank must ask again at `at` (an undetected dead node).
    bool move_to(std::size_t r, double& at)
    {
        const auto node = node_of(r);
        const auto mine = collectives::node_load(nodes_[node], node_slots(node));
        at = path_.message(at);  // the request reaches the service and is looked at
        if (!orphans_.empty()) {  // a dead node's ids first
            auto& span = orphans_.back();
            const auto share = std::max<std::uint64_t>(1, orphan_total_ / std::max<std::size_t>(1, alive_nodes()));
            const auto n = std::min(share, span.size());
            collectives::receive_ids(slots_[r], {span.last - n, span.last});
            span.last -= n;
            orphan_total_ -= n;
            result_.rerun += n;
            if (span.size() == 0) orphans_.pop_back();
            at = path_.reply(at);
            ++result_.moves;
            return true;
        }
        const auto victim = find_victim(node, mine.seconds_per_id);
        if (victim == nodes_.size()) {
            if (undetected_dead(at)) {
                at = cluster_.dead_at + costs_.dead_after;  // the service answers once it knows
                return true;
            }
            at = path_.reply(at);
            no_moves_[node] = true;  // nothing is left to move: the node's other claimers ask no more
            return false;
        }
        ++result_.asks;
        double answered = at + costs_.round_trip / 2;  // the ask reaches the victim
        if (dead(victim, answered)) {
            // Never answered: the thief's request waits until the service gives the node up.
            at = std::max(answered, cluster_.dead_at + costs_.dead_after);
            return true;
        }
        answered = poll_time(victim, answered);
        const int victim_rank = static_cast<int>(victim) * per_node_;
        const auto pool_block = [&] {
            const auto number = path_.pop_pool(victim_rank);
            return collectives::IdSpan{starts_[number], starts_[number + 1]};
        };
        const auto given = collectives::give_to_dry_node(nodes_[victim], node_slots(victim), mine.seconds_per_id,
                                                         mine.claimers, pool_block, pool_numbers(victim));
        // To the service and on to the thief. The service's work on it is counted but not queued
        // (this answer lies in the simulation's future; queueing it would hold up earlier requests).
        at = path_.reply(path_.message_unqueued(answered));
        if (given.size() == 0) return false;
        collectives::receive_ids(slots_[r], given);
        ++result_.moves;
        result_.moved += given.size();
        return true;
    }

    // The node other than `node` that will finish last among those worth asking (as the
    // service's table of loads knows them; here exact); nodes_.size() when none.
    std::size_t find_victim(std::size_t node, double seconds_per_id)
    {
        std::size_t victim = nodes_.size();
        double latest = 0;
        for (std::size_t k = 0; k < nodes_.size(); ++k) {
            if (k == node || gone_[k]) continue;
            const auto load = collectives::node_load(nodes_[k], node_slots(k), pool_numbers(k));
            const double finish = collectives::finish_estimate(load);
            if (finish > latest && collectives::worth_moving(load, seconds_per_id)) {
                latest = finish;
                victim = k;
            }
        }
        return victim;
    }

    bool undetected_dead(double at) const
    {
        return dead_ < nodes_.size() && !gone_[dead_] && at < cluster_.dead_at + costs_.dead_after;
    }

    // The victim answers at its next poll: a task start on the node or its watcher's tick.
    double poll_time(std::size_t victim, double arrival) const
    {
        double poll = arrival + costs_.answer_poll;
        const auto first = victim * static_cast<std::size_t>(per_node_);
        for (std::size_t k = first; k < std::min(slots_.size(), first + static_cast<std::size_t>(per_node_)); ++k) {
            if (next_event_[k] >= arrival) poll = std::min(poll, next_event_[k]);
        }
        return poll;
    }

    // Claim numbers node k's pool holds that still have a block.
    std::uint64_t pool_numbers(std::size_t k) const
    {
        return path_.pool_size(static_cast<int>(k) * per_node_, starts_.size() - 1);
    }

    std::size_t alive_nodes() const { return nodes_.size() - (dead_ < nodes_.size() ? 1 : 0); }

    // The service gives the dead node up: what it held unstarted and was running is rerun.
    void detect_dead(double /*t*/)
    {
        gone_[dead_] = true;
        auto& node = nodes_[dead_];
        const auto add = [&](collectives::IdSpan span) {
            if (span.size() == 0) return;
            orphans_.push_back(span);
            orphan_total_ += span.size();
        };
        add({node.open_next, node.open_end});
        node.open_next = node.open_end;
        node.exhausted = true;
        const auto first = dead_ * static_cast<std::size_t>(per_node_);
        for (std::size_t k = first; k < std::min(slots_.size(), first + static_cast<std::size_t>(per_node_)); ++k) {
            add({slots_[k].next, slots_[k].end});
            slots_[k].next = slots_[k].end;
            if (running_[k] != none) add({running_[k], running_[k] + 1});
            running_[k] = none;
        }
        // Claim numbers the dead node's pool holds are never taken: their blocks go too.
        for (const auto number : path_.drop_pool(static_cast<int>(first))) {
            if (number + 1 < starts_.size()) add({starts_[number], starts_[number + 1]});
        }
    }

    const TaskDurations& durations_;
    const Cluster& cluster_;
    const Schedule& schedule_;
    ClaimCosts costs_;
    const std::vector<std::uint64_t>& starts_;
    int per_node_;
    ClaimPath path_;
    std::vector<collectives::NodeIds> nodes_;
    std::vector<collectives::ClaimSlot> slots_;
    std::vector<double> seconds_per_task_;
    std::vector<std::uint64_t> running_;
    std::vector<double> next_event_;
    std::vector<bool> gone_ = std::vector<bool>(nodes_.size(), false);
    std::vector<bool> no_moves_ = std::vector<bool>(nodes_.size(), false);
    std::size_t dead_ = std::numeric_limits<std::size_t>::max();
    std::vector<collectives::IdSpan> orphans_;
    std::uint64_t orphan_total_ = 0;
    Ready ready_;
    SimResult result_;
};

}  // namespace

SimResult simulate_adaptive(const TaskDurations& durations, const Cluster& cluster, const Schedule& schedule,
                            const ClaimCosts& costs, const std::vector<std::uint64_t>& starts)
{
    auto result = AdaptiveRun(durations, cluster, schedule, costs, starts).run();
    const std::uint64_t blocks = starts.size() - 1;
    const auto tail = std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(cluster.ranks));
    if (tail > 0) result.last_claim_tasks = static_cast<double>(durations.size() - starts[blocks - tail]) / static_cast<double>(tail);
    return result;
}

}  // namespace shardrun::bench::scheduler
