// Gradient buckets against one raw MPI_Allreduce of the same bytes. The gradient set is a
// ViT-S/16 cut to 7 blocks (d 384, MLP 1536, 1000 classes): 92 tensors, 13.18 M floats
// (52.7 MB): 14 MLP weights of 2.25 MB, 7 qkv weights of 1.69 MB, the patch embedding and
// the head (1.1 and 1.5 MB), 7 attention projections of 0.56 MB, 60 biases, norms and
// tokens. Contenders, one "step" each:
//   anchor   MPI_Allreduce(MPI_IN_PLACE, 13.18 M floats, MPI_FLOAT, MPI_SUM) on a dup of world
//   buckets  collectives::GradientBuckets (25 MB cap, 1 MB first bucket, the averaging the
//            trainer asks for): mark_ready() of every tensor in production order, then wait()
//            once with progress_thread off, once with it on
// A step's time is the slowest rank's (barrier, timed loop of `iters` steps, MPI_MAX of the
// average); the contenders are interleaved in every round, the order rotating, and medians
// of the rounds are printed; ratio = raw time / bucketed time, target >= 0.95.
//
// Usage: mpirun -np N train_buckets_vs_mpi [rounds, default 5] [iters, default 10]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/buckets/gradient_buckets.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/mpi/mpi_error.hpp"

namespace {

using namespace shardrun;
using Clock = std::chrono::steady_clock;

/** Open MPI's choice of MPI_Iallreduce algorithm (coll/libnbc), as mpirun --mca passes it on. */
std::string iallreduce_algorithm()
{
    const char* value = std::getenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm");
    const std::string v = value ? value : "0";
    if (v == "0") return "default";
    const char* names[] = {"default", "ring", "binomial", "rabenseifner", "recursive_doubling"};
    const int n = std::atoi(v.c_str());
    return n > 0 && n < 5 ? names[n] : v;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/** Element counts of the ViT-like gradient set, in the order the backward pass produces them. */
std::vector<std::size_t> gradient_sizes()
{
    constexpr std::size_t d = 384, mlp = 1536, classes = 1000, patch_in = 16 * 16 * 3, tokens = 197, blocks = 7;
    std::vector<std::size_t> forward{patch_in * d, d, d, tokens * d};  // patch W, b, cls token, position
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::vector<std::size_t> block{d, d, d * 3 * d, 3 * d, d * d, d, d, d, d * mlp, mlp, mlp * d, d};
        forward.insert(forward.end(), block.begin(), block.end());  // ln1, qkv, proj, ln2, fc1, fc2
    }
    forward.insert(forward.end(), {d, d, d * classes, classes});  // final norm, head
    return {forward.rbegin(), forward.rend()};
}

/** Runs `iters` calls of `step` (after `warmup`) between a barrier and the clock; the slowest rank's average. */
template <typename Step>
double time_steps(MPI_Comm comm, int iters, int warmup, Step&& step)
{
    for (int k = 0; k < warmup; ++k) step();
    SHARDRUN_MPI_CHECK(MPI_Barrier(comm));
    const auto start = Clock::now();
    for (int k = 0; k < iters; ++k) step();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count() / iters;
    SHARDRUN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
    return seconds;
}

/** The buckets contender: one GradientBuckets for the whole run, every tensor ready in production order. */
struct Bucketed {
    Bucketed(collectives::Communicator& world, const std::vector<std::size_t>& sizes, bool thread)
        : buckets(world, sizes, collectives::GradientBuckets::default_cap_bytes,
                  collectives::GradientBuckets::default_first_cap_bytes, thread),
          tensors(sizes.size())
    {
        // Rank r writes r + 1 everywhere; after one step every element is the mean, (size + 1) / 2.
        for (std::size_t i = 0; i < tensors; ++i) {
            for (auto& x : buckets.gradient(i)) x = static_cast<float>(world.rank() + 1);
        }
        step();
        const float want = 0.5f * static_cast<float>(world.size() + 1);
        for (std::size_t i = 0; i < tensors; ++i) {
            for (const auto x : buckets.gradient(i)) wrong += std::fabs(x - want) > 1e-6f ? 1 : 0;
        }
    }
    void step()
    {
        for (std::size_t i = 0; i < tensors; ++i) buckets.mark_ready(i);
        const auto times = buckets.wait();
        exposed += times.exposed;
        communication += times.communication;
        ++steps;
    }

    collectives::GradientBuckets buckets;
    std::size_t tensors;
    std::size_t wrong = 0;
    double exposed = 0, communication = 0;
    int steps = 0;
};

int run(int argc, char** argv, int thread_level)
{
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const int iters = argc > 2 ? std::max(1, std::atoi(argv[2])) : 10;
    const auto world = collectives::mpi::world();
    const MPI_Comm comm = collectives::mpi::native_handle(*world);
    const bool leader = world->rank() == 0;
    const auto sizes = gradient_sizes();
    const auto total = std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
    const auto plan = collectives::plan_buckets(sizes, sizeof(float), collectives::GradientBuckets::default_cap_bytes,
                                                collectives::GradientBuckets::default_first_cap_bytes);
    const bool multiple = thread_level == MPI_THREAD_MULTIPLE;

    std::vector<float> raw(total, 0.0f);  // zeros: an in-place sum of zeros stays finite over any number of steps
    Bucketed off(*world, sizes, false);
    std::unique_ptr<Bucketed> on;
    if (multiple) on = std::make_unique<Bucketed>(*world, sizes, true);
    if (leader) {
        std::vector<double> bucket_mb(plan.back().bucket + 1, 0.0);
        for (const auto& slot : plan) bucket_mb[slot.bucket] += slot.size * 4.0 / 1e6;
        std::printf("gradient buckets vs one MPI_Allreduce: %d ranks, %zu tensors, %zu floats (%.1f MB), %zu buckets "
                    "(25 MB cap, 1 MB first):",
                    world->size(), sizes.size(), total, total * 4.0 / 1e6, bucket_mb.size());
        for (const auto mb : bucket_mb) std::printf(" %.3f", mb);
        std::printf(" MB\nMPI thread level %s; MPI_Iallreduce algorithm (Open MPI coll/libnbc) %s; medians of %d "
                    "interleaved rounds of %d steps\n",
                    multiple ? "MPI_THREAD_MULTIPLE" : "below MPI_THREAD_MULTIPLE (progress thread skipped)",
                    iallreduce_algorithm().c_str(), rounds, iters);
    }

    const int contenders = multiple ? 3 : 2;
    std::vector<std::vector<double>> seconds(contenders);
    std::vector<std::vector<double>> ratios(contenders);  // per round, raw / contender
    for (int round = 0; round < rounds; ++round) {
        std::vector<double> this_round(contenders);
        for (int turn = 0; turn < contenders; ++turn) {
            const int who = (turn + round) % contenders;
            if (who == 0) {
                this_round[0] = time_steps(comm, iters, 2, [&] {
                    SHARDRUN_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(total), MPI_FLOAT,
                                                     MPI_SUM, comm));
                });
            } else {
                auto& contender = who == 1 ? off : *on;
                this_round[who] = time_steps(comm, iters, 2, [&] { contender.step(); });
            }
        }
        for (int c = 0; c < contenders; ++c) {
            seconds[c].push_back(this_round[c]);
            ratios[c].push_back(this_round[0] / this_round[c]);
        }
    }

    const auto wrong =
        world->allreduce_value<std::uint64_t>(off.wrong + (on ? on->wrong : 0), collectives::ReduceOp::sum);
    if (leader) {
        const char* names[] = {"anchor: one MPI_Allreduce", "buckets, progress_thread off",
                               "buckets, progress_thread on"};
        std::printf("%-32s %10s %10s %8s %8s\n", "contender", "ms/step", "GB/s", "ratio", "best");
        for (int c = 0; c < contenders; ++c) {
            const double ms = median(seconds[c]) * 1e3;
            const double best = *std::min_element(seconds[0].begin(), seconds[0].end()) /
                                *std::min_element(seconds[c].begin(), seconds[c].end());
            std::printf("%-32s %10.2f %10.3f %8.3f %8.3f\n", names[c], ms, total * 4.0 / 1e9 / (ms / 1e3),
                        median(ratios[c]), best);
        }
        for (int c = 1; c < contenders; ++c) {
            const auto& b = c == 1 ? off : *on;
            std::printf("RATIO buckets-vs-mpi np=%d progress_thread=%s iallreduce=%s: %.3f (raw / bucketed, median "
                        "of rounds; target >= 0.95)   [exposed/communication in wait(): %.2f]\n",
                        world->size(), c == 1 ? "off" : "on", iallreduce_algorithm().c_str(), median(ratios[c]),
                        b.exposed / b.communication);
        }
        std::printf("wrong averages: %llu\n", static_cast<unsigned long long>(wrong));
    }
    return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int code = 1;
    try {
        code = run(argc, argv, provided);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "train_buckets_vs_mpi: %s\n", error.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}
