// Scheduler efficiency at scale, simulated (issue 13, item 4): R virtual ranks run T tasks
// of heavy-tailed durations under every schedule the job file offers, through the real claim
// path (placement::ClaimSequence sizes, refill_grant() pools, one claim service on rank 0),
// and the efficiency busy / (R x wall) is printed against two anchors simulated in the same
// run: the same claim sizes with free claims, and self-scheduling one task per free claim
// (the best any schedule can do without knowing durations). See benchmarks/README.md.
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "scheduler_sim.hpp"

namespace po = boost::program_options;
using namespace shardrun::bench::scheduler;

namespace {

struct Options {
    std::vector<int> ranks{1000, 10000, 100000};
    std::uint64_t tasks_per_rank = 100;
    std::string law = "lognormal";
    DurationLaw durations;
    int ranks_per_node = 64;
    ClaimCosts costs;
    std::vector<std::string> dynamic{"1:0", "16:0"};
    double measured_claim_rate = 37769;
    double slow_node = 1;   ///< node 0's ranks this x slower
    double rank_sigma = 0;  ///< log-normal per-rank slowdown
    double span = 0.1;      ///< adaptive claims: seconds of the claimant's work per claim
    int dead_node = -1;     ///< this node stops answering at dead_at (-1: none)
    double dead_at = 0;
};

struct Row {
    std::string name;
    Cluster cluster;
    Schedule schedule;
    ClaimCosts costs;
};

Schedule parse_dynamic(const std::string& text)
{
    const auto colon = text.find(':');
    if (colon == std::string::npos) throw po::error("--dynamic takes min_claim:max_claim, got '" + text + "'");
    return {Policy::dynamic, std::stoull(text.substr(0, colon)), std::stoull(text.substr(colon + 1))};
}

std::vector<Row> rows_for(int ranks, const Options& options)
{
    const Cluster cluster{ranks, options.ranks_per_node,
                          rank_slowdowns(ranks, options.ranks_per_node, options.slow_node, options.rank_sigma,
                                         options.durations.seed + 1),
                          options.dead_node, options.dead_at};
    std::vector<Row> rows{{"anchor: 1 task per claim, free", cluster, {Policy::dynamic, 1, 1}, {}}};
    for (const auto& text : options.dynamic) {
        auto schedule = parse_dynamic(text);
        const auto name = fmt::format("min {} max {}", schedule.min_claim, schedule.max_claim);
        rows.push_back({"whole blocks (before) " + name + ", free", cluster, schedule, {}});
        rows.push_back({"whole blocks (before) " + name, cluster, schedule, options.costs});
        schedule.adaptive = true;
        schedule.span = options.span;
        rows.push_back({"adaptive " + name + ", free claims", cluster, schedule, {}});
        rows.push_back({"adaptive " + name, cluster, schedule, options.costs});
        schedule.across_nodes = false;
        // Without moves between nodes a dead node's ids are never run: no row to compare.
        if (options.dead_node < 0) rows.push_back({"adaptive " + name + ", within nodes (before)", cluster, schedule, options.costs});
    }
    rows.push_back({"static block", cluster, {Policy::block}, options.costs});
    rows.push_back({"static cyclic", cluster, {Policy::cyclic}, options.costs});
    return rows;
}

void report(int ranks, const Options& options)
{
    const auto tasks = options.tasks_per_rank * static_cast<std::uint64_t>(ranks);
    const TaskDurations durations(options.durations, tasks);
    const double ideal = std::max(durations.total() / ranks, durations.longest());  // at speed 1
    fmt::print("R = {}, T = {} ({} nodes of {}): total {:.4g} s, mean {:.4g} s, longest {:.4g} s, "
               "ideal wall max(total/R, longest) = {:.4g} s (efficiency <= {:.3f})\n",
               ranks, tasks, (ranks + options.ranks_per_node - 1) / options.ranks_per_node, options.ranks_per_node,
               durations.total(), durations.total() / static_cast<double>(tasks), durations.longest(), ideal,
               durations.total() / (ranks * ideal));
    fmt::print("  {:<52} {:>10} {:>10} {:>9} {:>10} {:>9} {:>9} {:>9} {:>7} {:>9} {:>8} {:>8} {:>7}\n", "schedule", "wall s",
               "efficiency", "/ anchor", "claims", "refills", "refill/T", "svc busy", "tail k", "took back", "moves",
               "moved", "rerun");
    double anchor = 0;
    for (const auto& row : rows_for(ranks, options)) {
        const auto result = simulate(durations, row.cluster, row.schedule, row.costs);
        if (result.tasks != tasks) throw std::logic_error(fmt::format("{} ran {} of {} tasks", row.name, result.tasks, tasks));
        const double efficiency = result.efficiency(ranks);
        if (anchor == 0) anchor = efficiency;
        const bool dynamic = row.schedule.policy == Policy::dynamic;
        fmt::print("  {:<52} {:>10.4g} {:>10.4f} {:>9.4f} {:>10} {:>9} {:>9.4f} {:>9.4f} {:>7} {:>9} {:>8} {:>8} {:>7}\n", row.name, result.wall,
                   efficiency, efficiency / anchor, dynamic ? fmt::format("{}", result.claims) : "-",
                   dynamic ? fmt::format("{}", result.refills) : "-",
                   static_cast<double>(result.refills) / static_cast<double>(tasks), result.service_busy / result.wall,
                   dynamic ? fmt::format("{:.3g}", result.last_claim_tasks) : "-",
                   row.schedule.adaptive ? fmt::format("{}", result.taken_back) : "-",
                   row.schedule.adaptive ? fmt::format("{}", result.moves) : "-",
                   row.schedule.adaptive ? fmt::format("{}", result.moved) : "-",
                   row.schedule.adaptive ? fmt::format("{}", result.rerun) : "-");
    }
    std::fflush(stdout);
}

/** Costs as given on the command line, in the units the options name. */
struct RawCosts {
    double local_ns = 70.4, round_trip_us = 5.7, service_us = 1.43, nap_min_us = 20, nap_max_us = 1000,
           overshoot_us = 80, per_task_us = 0.23, answer_poll_us = 20000, dead_after_s = 10;
    ClaimCosts seconds() const
    {
        return {local_ns * 1e-9, round_trip_us * 1e-6, service_us * 1e-6, nap_min_us * 1e-6, nap_max_us * 1e-6,
                overshoot_us * 1e-6, per_task_us * 1e-6, answer_poll_us * 1e-6, dead_after_s};
    }
};

po::options_description describe(Options& o, RawCosts& c)
{
    po::options_description d("scheduler_sim options (times as measured by claims_bench; see benchmarks/README.md)");
    d.add_options()("help,h", "this text")
        ("ranks", po::value(&o.ranks)->multitoken(), "virtual ranks R (several: one table each)")
        ("tasks-per-rank", po::value(&o.tasks_per_rank), "T = this x R")
        ("law", po::value(&o.law), "lognormal | pareto | constant")
        ("scale", po::value(&o.durations.scale), "lognormal median / Pareto x_m / constant, seconds")
        ("shape", po::value(&o.durations.shape), "lognormal sigma / Pareto alpha (default 1 / 2.5)")
        ("cap", po::value(&o.durations.cap), "no task longer than cap x scale (0: uncapped; default 100)")
        ("seed", po::value(&o.durations.seed), "duration seed")
        ("slow-node", po::value(&o.slow_node), "node 0's ranks run every task this x slower (1: none)")
        ("rank-sigma", po::value(&o.rank_sigma), "log-normal per-rank slowdown, log-sigma (0: none)")
        ("sweep", po::value(&o.durations.sweep), "size sweep: task id of T is sweep^(id/(T-1)) x heavier (1: none)")
        ("span", po::value(&o.span), "adaptive claims: seconds of the claimant's work per claim")
        ("ranks-per-node", po::value(&o.ranks_per_node), "claimers per node (>= R: one node, no claim service)")
        ("dynamic", po::value(&o.dynamic)->multitoken(), "dynamic schedules to run, as min_claim:max_claim")
        ("local-take-ns", po::value(&c.local_ns), "one take from the node pool")
        ("round-trip-us", po::value(&c.round_trip_us), "network round trip of a refill")
        ("service-us", po::value(&c.service_us), "claim service work per refill")
        ("nap-min-us", po::value(&c.nap_min_us), "service's first idle nap (0: no naps)")
        ("nap-max-us", po::value(&c.nap_max_us), "service's longest nap")
        ("nap-overshoot-us", po::value(&c.overshoot_us), "extra sleep per nap")
        ("per-task-us", po::value(&c.per_task_us), "rank loop cost per task")
        ("answer-poll-us", po::value(&c.answer_poll_us), "a node asked for ids answers within this (its watcher's tick)")
        ("dead-after-s", po::value(&c.dead_after_s), "the service gives a silent node up after this long")
        ("dead-node", po::value(&o.dead_node), "this node stops answering mid-run (-1: none)")
        ("dead-at", po::value(&o.dead_at), "when it stops, seconds into the run")
        ("measured-claim-rate", po::value(&o.measured_claim_rate), "claims/s claims_bench measured (calibration line)");
    return d;
}

Options parse(int argc, char** argv)
{
    Options o;
    RawCosts costs;
    const auto description = describe(o, costs);
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, description), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << description;
        std::exit(0);
    }
    using Kind = DurationLaw::Kind;
    if (o.law != "lognormal" && o.law != "pareto" && o.law != "constant") throw po::error("--law: lognormal, pareto or constant");
    o.durations.kind = o.law == "pareto" ? Kind::pareto : o.law == "constant" ? Kind::constant : Kind::lognormal;
    if (!vm.count("cap") && o.durations.kind != Kind::constant) o.durations.cap = 100;
    if (!vm.count("shape") && o.durations.kind == Kind::pareto) o.durations.shape = 2.5;
    o.costs = costs.seconds();
    return o;
}

}  // namespace

int main(int argc, char** argv)
{
    Options options;
    try {
        options = parse(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "scheduler_sim: %s\n", error.what());
        return 2;
    }
    const auto& c = options.costs;
    fmt::print("scheduler_sim: durations {}; T = {} x R; ranks: node 0 {:g} x slower, per-rank log-normal slowdown sigma {:g}; "
               "adaptive span {:g} s\n",
               options.durations.describe(), options.tasks_per_rank, options.slow_node, options.rank_sigma, options.span);
    fmt::print("claim costs: take {:.4g} us, refill round trip {:.4g} us, service {:.4g} us per refill, naps {:.4g}..{:.4g} us "
               "+ {:.4g} us overshoot, per task {:.4g} us; an asked node answers within {:.4g} ms; a silent node is given "
               "up after {:g} s\n",
               c.local_take * 1e6, c.round_trip * 1e6, c.service * 1e6, c.nap_min * 1e6, c.nap_max * 1e6,
               c.nap_overshoot * 1e6, c.per_task * 1e6, c.answer_poll * 1e3, c.dead_after);
    if (options.dead_node >= 0) fmt::print("node {} stops answering at {:g} s\n", options.dead_node, options.dead_at);
    const double rate = simulate_claim_loop({4, 1}, 5000, c);
    fmt::print("calibration: claims_bench's service loop (4 one-rank nodes, 5000 claims each) simulated {:.0f} claims/s, "
               "measured {:.0f}: ratio {:.3f}\n\n",
               rate, options.measured_claim_rate, rate / options.measured_claim_rate);
    for (const int ranks : options.ranks) {
        const auto start = std::chrono::steady_clock::now();
        report(ranks, options);
        fmt::print("  (simulated in {:.1f} s)\n\n",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return 0;
}
