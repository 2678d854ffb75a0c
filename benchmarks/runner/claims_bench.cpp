// The dynamic schedule's claim counter (collectives::WorkCounters) under mpirun, each figure
// against an anchor measured in the same run, contenders interleaved over rounds, medians:
//  1. claims per second on one node (a mutex-guarded take from shared memory) and with every
//     rank posing as its own node (each claim a two-sided round trip to the claim service on
//     rank 0, as across nodes); anchors: a process-local std::atomic fetch_add loop, and a
//     bare MPI round trip to rank 0 per claim;
//  2. scheduling efficiency, busy / (ranks x wall), on heavy-tailed task durations: the
//     dynamic schedule in both node modes against the static block schedule.
// claims.sh runs it under the default one-sided component and under osc/pt2pt.
//
// Usage: claims_bench [claims per rank, one node] [claims per rank, service] [tasks] [rounds]
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numbers>
#include <thread>
#include <vector>

#include "collectives/claims/work_counters.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/run/loop/rank_loop_setup.hpp"
#include "runner/tasks/registry.hpp"

namespace {

using namespace shardrun;
using collectives::Communicator;
using collectives::ReduceOp;

class DiscardSink : public io::ResultSink {
public:
    void record_locked(const io::TaskRecord&, const io::TaskValues&) override {}
    void commit_locked() override {}
};

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// The slowest rank's seconds (every rank started after a common barrier). Open MPI's blocking
// collectives poll, and with more ranks than cores a rank that is done would take the CPU from
// those still working, so ranks first wait for each other asleep.
double slowest(Communicator& world, double elapsed)
{
    auto done = world.ibarrier();
    while (!done.test()) std::this_thread::sleep_for(std::chrono::microseconds(50));
    return world.allreduce_value(elapsed, ReduceOp::max);
}

// Runs every contender once per round, rotating the order so none always goes first;
// returns results[contender][round]. Every rank runs the same order (they are collective).
template <typename Result>
std::vector<std::vector<Result>> interleave(const std::vector<std::function<Result()>>& contenders, int rounds)
{
    std::vector<std::vector<Result>> results(contenders.size());
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t k = 0; k < contenders.size(); ++k) {
            const auto which = (k + static_cast<std::size_t>(round)) % contenders.size();
            results[which].push_back(contenders[which]());
        }
    }
    return results;
}

// ---- 1. claims per second ----

// Anchor: as many takes from a process-local atomic (what one claim costs with no sharing).
double anchor_atomic(Communicator& world, std::uint64_t count)
{
    static std::atomic<std::uint64_t> counter{0};
    std::uint64_t checksum = 0;
    world.barrier();
    const double start = now();
    for (std::uint64_t k = 0; k < count; ++k) checksum += counter.fetch_add(1);
    const double elapsed = now() - start;
    if (checksum == 1) std::puts("");  // keeps the loop from being optimised away
    return slowest(world, elapsed);
}

// Anchor of the service mode: one bare round trip to rank 0 per claim, rank 0's main thread
// answering in a tight loop (rank 0 takes its own share from an atomic, as the service's
// rank does). The least a claim can cost when each one is a message.
double anchor_round_trip(Communicator& world, std::uint64_t count)
{
    auto comm = world.split(0, world.rank());  // a private copy: no other traffic matches
    std::int64_t value = 0;
    auto one = std::span<std::int64_t>(&value, 1);
    world.barrier();
    const double start = now();
    if (comm->rank() == 0) {
        static std::atomic<std::uint64_t> counter{0};
        for (std::uint64_t k = 0; k < count; ++k) counter.fetch_add(1);
        for (std::uint64_t k = 0; k < count * static_cast<std::uint64_t>(comm->size() - 1); ++k) {
            comm->recv(one, collectives::any_source, 1);
            const auto sender = static_cast<int>(value);
            value = static_cast<std::int64_t>(counter.fetch_add(1));
            comm->send(std::span<const std::int64_t>(one), sender, 2);
        }
    } else {
        for (std::uint64_t k = 0; k < count; ++k) {
            value = comm->rank();
            comm->send(std::span<const std::int64_t>(one), 0, 1);
            comm->recv(one, 0, 2);
        }
    }
    return slowest(world, now() - start);
}

// `count` claims on every rank; aborts unless they were 0..N-1 (their sum and maximum).
double timed_claims(Communicator& world, Communicator& node, std::uint64_t count)
{
    collectives::WorkCounters counters(world, node, true);
    std::uint64_t sum = 0, top = 0;
    world.barrier();
    const double start = now();
    for (std::uint64_t k = 0; k < count; ++k) {
        const auto claim = counters.next_claim();
        sum += claim;
        top = std::max(top, claim);
    }
    const double seconds = slowest(world, now() - start);
    const auto n = count * static_cast<std::uint64_t>(world.size());
    const bool sum_ok = world.allreduce_value(sum, ReduceOp::sum) == n * (n - 1) / 2;
    if (!sum_ok || world.allreduce_value(top, ReduceOp::max) != n - 1) {
        std::fprintf(stderr, "claims_bench: claims are not 0..%llu once each\n", static_cast<unsigned long long>(n - 1));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    counters.finish();
    return seconds;
}

void claims_per_second(Communicator& world, Communicator& node, Communicator& alone, std::uint64_t count,
                       std::uint64_t service_count, int rounds)
{
    const auto seconds = interleave<double>({[&] { return anchor_atomic(world, count); },
                                             [&] { return timed_claims(world, node, count); },
                                             [&] { return anchor_round_trip(world, service_count); },
                                             [&] { return timed_claims(world, alone, service_count); }},
                                            rounds);
    if (world.rank() != 0) return;
    const int size = world.size();
    const double counts[] = {double(count), double(count), double(service_count), double(service_count)};
    const char* names[] = {"anchor A: process-local atomic fetch_add", "one node (shared memory)",
                           "anchor B: bare MPI round trip to rank 0", "one-rank nodes (claim service)"};
    std::vector<double> rate[4];  // claims/s in total, per round
    for (int c = 0; c < 4; ++c)
        for (const double s : seconds[c]) rate[c].push_back(counts[c] * size / s);
    auto ratio = [&](int c, int anchor) {
        std::vector<double> r;
        for (int k = 0; k < rounds; ++k) r.push_back(rate[c][k] / rate[anchor][k]);
        return median(r);
    };
    std::printf("1. claims per second: %d ranks, %llu claims per rank (one node), %llu (service); medians of %d rounds\n",
                size, static_cast<unsigned long long>(count), static_cast<unsigned long long>(service_count), rounds);
    std::printf("   %-42s %12s %12s %14s\n", "", "claims/s", "per rank", "ns/claim/rank");
    for (int c = 0; c < 4; ++c) {
        const double r = median(rate[c]);
        std::printf("   %-42s %12.0f %12.0f %14.1f\n", names[c], r, r / size, 1e9 * size / r);
    }
    std::printf("   one node / anchor A:       %.4f\n", ratio(1, 0));
    std::printf("   claim service / anchor A:  %.6f\n", ratio(3, 0));
    std::printf("   claim service / anchor B:  %.3f\n", ratio(3, 2));
}

// ---- 2. scheduling efficiency on heavy-tailed durations ----

constexpr double median_seconds = 1.5e-3, sigma = 1.5, cap = 100;

std::uint64_t splitmix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit(std::uint64_t bits) { return (static_cast<double>(bits >> 11) + 0.5) * 0x1p-53; }  // in (0, 1)

// Log-normal (median 1.5 ms, sigma 1.5: mean 4.6 ms uncapped), capped at 100 x the median so
// one task cannot dominate a round; drawn from the task id alone, so every contender runs the
// same tasks.
double duration_of(std::uint64_t id)
{
    const std::uint64_t seed = 20261122;
    const double u1 = unit(splitmix(seed + 2 * id)), u2 = unit(splitmix(seed + 2 * id + 1));
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    return std::min(median_seconds * std::exp(sigma * z), cap * median_seconds);
}

// Sleeps for its duration: with 4 ranks on 2 cores, busy-waiting ranks would compete for CPU
// and measure the machine, not the schedule.
class HeavyTailKind : public tasks::TaskKind {
public:
    std::string_view name() const noexcept override { return "heavy_tail"; }
    void validate(const job::ParamMap&, const tasks::JobView&) const override {}
    std::vector<io::FieldSpec> fields(const job::ParamMap&) const override
    {
        return {{"seconds", io::DType::float64, {}, ""}};
    }
    tasks::TaskOutcome run(const tasks::TaskContext& context) const override
    {
        const double seconds = duration_of(context.task_id);
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        tasks::TaskOutcome outcome;
        outcome.values.emplace_back(sizeof(double));
        std::memcpy(outcome.values[0].data(), &seconds, sizeof(double));
        return outcome;
    }
};

struct LoopResult {
    double wall = 0;  // the slowest rank's seconds
    double busy = 0;  // summed task seconds of every rank
    double efficiency(int ranks) const { return busy / (ranks * wall); }
};

LoopResult timed_loop(Communicator& world, Communicator& node, const job::TaskSpace& space, job::ScheduleSpec schedule)
{
    HeavyTailKind heavy;
    run::LoopSettings settings;
    settings.kind = &heavy;
    settings.space = &space;
    settings.fields = heavy.fields({});
    settings.commit_interval_seconds = 1e9;
    DiscardSink sink;
    run::RankLoopSetup loop(world, node, settings, schedule, {0, space.size()}, 1);
    world.barrier();
    const double start = now();
    const auto stats = loop.run(sink);
    LoopResult result{slowest(world, now() - start), world.allreduce_value(stats.busy_seconds, ReduceOp::sum)};
    loop.finish();
    return result;
}

void print_durations(std::uint64_t tasks, int size)
{
    double total = 0, longest = 0;
    for (std::uint64_t id = 0; id < tasks; ++id) {
        total += duration_of(id);
        longest = std::max(longest, duration_of(id));
    }
    std::printf("2. scheduling efficiency: %llu tasks on %d ranks, log-normal durations (median %.1f ms, sigma %.1f, "
                "capped at %.0fx): mean %.2f ms, longest %.0f ms, total %.2f s\n",
                static_cast<unsigned long long>(tasks), size, 1e3 * median_seconds, sigma, cap, 1e3 * total / tasks,
                1e3 * longest, total);
    std::printf("   tasks sleep rather than spin (2 cores, 4 ranks); ideal wall max(total/ranks, longest) = %.3f s\n",
                std::max(total / size, longest));
}

void efficiency(Communicator& world, Communicator& node, Communicator& alone, std::uint64_t tasks, int rounds)
{
    const auto text = "task: noop\nsweep: {i: {range: [0, " + std::to_string(tasks) + ", 1]}}\n";
    const auto spec = job::parse_job("bench.yaml", text, {}, tasks::task_kind_names());
    const auto space = job::TaskSpace::of(spec, 0);
    auto fixed = spec.schedule, dynamic = spec.schedule;
    fixed.kind = job::ScheduleKind::block;
    dynamic.kind = job::ScheduleKind::dynamic;
    const auto results = interleave<LoopResult>({[&] { return timed_loop(world, node, space, fixed); },
                                                 [&] { return timed_loop(world, node, space, dynamic); },
                                                 [&] { return timed_loop(world, alone, space, dynamic); }},
                                                rounds);
    if (world.rank() != 0) return;
    const int size = world.size();
    print_durations(tasks, size);
    const char* names[] = {"static block (anchor)", "dynamic, one node", "dynamic, one-rank nodes (service)"};
    std::printf("   %-36s %8s %11s %14s %18s\n", "medians", "wall s", "efficiency", "eff / static", "speedup vs static");
    for (int c = 0; c < 3; ++c) {
        std::vector<double> wall, eff, eff_ratio, speedup;
        for (int k = 0; k < rounds; ++k) {
            const auto& mine = results[c][k];
            const auto& anchor = results[0][k];
            wall.push_back(mine.wall);
            eff.push_back(mine.efficiency(size));
            eff_ratio.push_back(mine.efficiency(size) / anchor.efficiency(size));
            speedup.push_back(anchor.wall / mine.wall);
        }
        std::printf("   %-36s %8.3f %11.3f %14.3f %18.3f\n", names[c], median(wall), median(eff), median(eff_ratio),
                    median(speedup));
    }
}

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    {
        auto world = collectives::mpi::world();
        auto node = collectives::mpi::split_by_node(*world);
        // Every rank its own node: pools refill from the claim service, as across nodes.
        auto alone = world->split(world->rank(), 0);
        const auto arg = [&](int k, long fallback) { return argc > k ? std::atol(argv[k]) : fallback; };
        const auto count = static_cast<std::uint64_t>(arg(1, 1000000));
        const auto service_count = static_cast<std::uint64_t>(arg(2, 5000));
        const auto tasks = static_cast<std::uint64_t>(arg(3, 2000));
        const int rounds = static_cast<int>(arg(4, 5));
        if (world->rank() == 0) {
            std::printf("claims_bench: %d ranks, %d on rank 0's node, MPI_THREAD_MULTIPLE %s\n", world->size(),
                        node->size(), provided >= MPI_THREAD_MULTIPLE ? "yes" : "NO (the claim service needs it)");
            std::fflush(stdout);
        }
        claims_per_second(*world, *node, *alone, count, service_count, rounds);
        if (world->rank() == 0) std::fflush(stdout);
        efficiency(*world, *node, *alone, tasks, rounds);
    }
    MPI_Finalize();
    return 0;
}
