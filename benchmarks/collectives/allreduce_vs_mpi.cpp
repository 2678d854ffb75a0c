// `shardrun bench allreduce --backend mpi` against the MPI call it wraps. Both contenders
// time the same loop (warm-up, world barrier, `iters` out-of-place float sums, the slowest
// rank's average) on the same sizes; the shardrun one is bench::measure_allreduce, the very
// function the command calls, so the ratio is what the Communicator layer (a virtual call,
// the count and type mapping) costs over MPI_Allreduce. Contenders are interleaved, the order
// rotating every round, and medians of the rounds are printed (with the ratio of the best
// rounds, which a busy machine disturbs least); target: ratio >= 0.95. A third contender,
// reported apart, is the blocking allreduce of collectives::StallGuard over a split of the
// world: what a task's group's collectives pay (the deadline's polling, the receive into the
// guard's scratch; at 2 ranks its own exchange and reduction); target (benchmarks/run's row):
// ratio >= 0.95 on average and at every size >= 1 MiB.
//
// Usage: mpirun -np N allreduce_vs_mpi [max bytes, default 64M] [rounds, default 5]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "collectives/mpi/environment.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/mpi/mpi_error.hpp"
#include "collectives/stall_guard.hpp"
#include "runner/bench/allreduce_bench.hpp"

namespace {

using namespace shardrun;

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// About 64 MiB reduced per size and round, at least 10 and at most 2000 iterations: small
// sizes run for milliseconds, not one timer tick, and the largest round stays short, so
// a round disturbed by another process is one of several rather than most of the run.
int iters_for(std::size_t bytes) { return static_cast<int>(std::clamp<std::size_t>((64u << 20) / bytes, 10, 2000)); }
int warmup_for(std::size_t bytes) { return std::max(2, iters_for(bytes) / 10); }

/** The anchor: MPI_Allreduce on a dup of MPI_COMM_WORLD and plain host vectors. */
class RawMpi {
public:
    explicit RawMpi(std::size_t max_count) : send_(max_count, 1.0f), recv_(max_count)
    {
        SHARDRUN_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm_));
    }
    ~RawMpi() { MPI_Comm_free(&comm_); }
    RawMpi(const RawMpi&) = delete;
    RawMpi& operator=(const RawMpi&) = delete;

    // Seconds per iteration, the slowest rank's: the same steps as bench's timed loop.
    double time(std::size_t count, int iters, int warmup)
    {
        for (int k = 0; k < warmup; ++k) once(count);
        SHARDRUN_MPI_CHECK(MPI_Barrier(comm_));
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < iters; ++k) once(count);
        double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
        SHARDRUN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm_));
        return seconds;
    }

private:
    void once(std::size_t count)
    {
        SHARDRUN_MPI_CHECK(
            MPI_Allreduce(send_.data(), recv_.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm_));
    }

    MPI_Comm comm_ = MPI_COMM_NULL;
    std::vector<float> send_, recv_;
};

/** The blocking allreduce of a StallGuard over a split of the world, as a task's group has it. */
class Guarded {
public:
    Guarded(collectives::Communicator& world, std::size_t max_count)
        : group_(world.split(0, world.rank())), guard_(*group_, 60.0, names(world.size()), "group 0"),
          send_(max_count, 1.0f), recv_(max_count) {}

    // Seconds per iteration, the slowest rank's: the same steps as RawMpi::time.
    double time(std::size_t count, int iters, int warmup)
    {
        for (int k = 0; k < warmup; ++k) once(count);
        guard_.barrier();
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < iters; ++k) once(count);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iters;
        return group_->allreduce_value(seconds, collectives::ReduceOp::max);
    }

private:
    static std::vector<std::string> names(int size)
    {
        std::vector<std::string> out;
        for (int r = 0; r < size; ++r) out.push_back("rank " + std::to_string(r));
        return out;
    }
    void once(std::size_t count)
    {
        guard_.allreduce_raw(send_.data(), recv_.data(), count, collectives::DataType::float32,
                             collectives::ReduceOp::sum);
    }

    std::unique_ptr<collectives::Communicator> group_;
    collectives::StallGuard guard_;
    std::vector<float> send_, recv_;
};

struct SizeResult {
    std::vector<double> raw_seconds, shardrun_seconds, guarded_seconds;
    std::uint64_t wrong = 0;
};

// The contenders on one size, `rounds` times, the one going first rotating.
SizeResult measure_size(bench::AllreduceBackend& backend, collectives::Communicator& world, RawMpi& raw,
                        Guarded& guarded, std::size_t bytes, int rounds)
{
    const auto count = bytes / sizeof(float);
    SizeResult result;
    for (int round = 0; round < rounds; ++round) {
        for (int turn = 0; turn < 3; ++turn) {
            const int who = (turn + round) % 3;
            if (who == 0) {
                result.raw_seconds.push_back(raw.time(count, iters_for(bytes), warmup_for(bytes)));
            } else if (who == 1) {
                const auto row = bench::measure_allreduce(backend, world, count, iters_for(bytes), warmup_for(bytes));
                result.shardrun_seconds.push_back(row.time_us * 1e-6);
                result.wrong += row.wrong;
            } else {
                result.guarded_seconds.push_back(guarded.time(count, iters_for(bytes), warmup_for(bytes)));
            }
        }
    }
    return result;
}

// Per round, raw time / contender time (the busbw ratio); its median.
double median_ratio(const std::vector<double>& raw, const std::vector<double>& contender)
{
    std::vector<double> ratios;
    for (std::size_t k = 0; k < raw.size(); ++k) ratios.push_back(raw[k] / contender[k]);
    return median(ratios);
}

/** One printed line: medians, and the best rounds' ratio (what is left when another process took the CPU). */
struct SizeSummary {
    double raw_busbw, shardrun_busbw, ratio, best_ratio, guarded_busbw, guarded_ratio;
};

SizeSummary summarize(const SizeResult& result, std::size_t bytes, int ranks)
{
    const double bus = bench::allreduce_bus_factor(ranks);
    const auto busbw = [&](const std::vector<double>& seconds) { return bytes / median(seconds) / 1e9 * bus; };
    const auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
    return {busbw(result.raw_seconds),
            busbw(result.shardrun_seconds),
            median_ratio(result.raw_seconds, result.shardrun_seconds),
            best(result.raw_seconds) / best(result.shardrun_seconds),
            busbw(result.guarded_seconds),
            median_ratio(result.raw_seconds, result.guarded_seconds)};
}

void print_header(int ranks, std::size_t max_bytes, int rounds)
{
    std::printf("allreduce, float sum out-of-place, %d ranks on one host, 16 B .. %zu B (x4); medians of %d "
                "interleaved rounds\n",
                ranks, max_bytes, rounds);
    std::printf("%12s %6s %12s %12s %7s %7s %12s %7s\n", "size (B)", "iters", "raw busbw", "shard busbw", "ratio",
                "best", "guard busbw", "ratio");
}

void print_totals(const std::vector<SizeSummary>& rows, std::uint64_t wrong)
{
    double raw = 0, shardrun = 0, guarded = 0;
    std::vector<double> ratios, best, guarded_ratios;
    for (const auto& row : rows) {
        raw += row.raw_busbw / rows.size();
        shardrun += row.shardrun_busbw / rows.size();
        guarded += row.guarded_busbw / rows.size();
        ratios.push_back(row.ratio);
        best.push_back(row.best_ratio);
        guarded_ratios.push_back(row.guarded_ratio);
    }
    std::printf("avg busbw: raw %.4f GB/s, shardrun %.4f GB/s (ratio %.3f)\n", raw, shardrun, shardrun / raw);
    std::printf("guarded (StallGuard, as a task's group): avg busbw %.4f GB/s (ratio %.3f), per-size ratios median "
                "%.3f, min %.3f\n",
                guarded, guarded / raw, median(guarded_ratios),
                *std::min_element(guarded_ratios.begin(), guarded_ratios.end()));
    std::printf("per-size ratios (target >= 0.95): median %.3f, min %.3f; of best rounds: median %.3f, min %.3f; "
                "#wrong %llu\n",
                median(ratios), *std::min_element(ratios.begin(), ratios.end()), median(best),
                *std::min_element(best.begin(), best.end()), static_cast<unsigned long long>(wrong));
}

int run(int argc, char** argv)
{
    const std::size_t max_bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{64} << 20;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const auto world = collectives::mpi::world();
    const auto backend = bench::make_backend(bench::Backend::mpi, *world, world->size());
    RawMpi raw(max_bytes / sizeof(float));
    Guarded guarded(*world, max_bytes / sizeof(float));
    backend->reserve(max_bytes / sizeof(float));  // as run_allreduce does: both contenders on one allocation
    const bool leader = world->rank() == 0;
    if (leader) print_header(world->size(), max_bytes, rounds);
    std::vector<SizeSummary> rows;
    std::uint64_t wrong = 0;
    for (const auto bytes : bench::sizes_between(16, max_bytes, 4)) {
        const auto result = measure_size(*backend, *world, raw, guarded, bytes, rounds);
        rows.push_back(summarize(result, bytes, world->size()));
        wrong += result.wrong;
        if (leader) {
            const auto& row = rows.back();
            std::printf("%12zu %6d %12.4f %12.4f %7.3f %7.3f %12.4f %7.3f\n", bytes, iters_for(bytes), row.raw_busbw,
                        row.shardrun_busbw, row.ratio, row.best_ratio, row.guarded_busbw, row.guarded_ratio);
            std::fflush(stdout);
        }
    }
    if (leader) print_totals(rows, wrong);
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    collectives::MpiEnvironment mpi(&argc, &argv);
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {
        // One rank failing would leave the others in their next collective.
        std::fprintf(stderr, "allreduce_vs_mpi: %s\n", error.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 1;
}
