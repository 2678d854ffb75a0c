// The train kind's step, two ways (tasks::train::train_mlp, the function the kind runs):
//
//   overlap      (mpirun -np 2; one group of every rank) how much of the gradient allreduce the
//                backward pass hides, progress_thread on vs off, interleaved: hidden = 1 -
//                comm_exposed_seconds / comm_seconds (the trainer's own split; target >= 0.5).
//                Anchor: the same buckets allreduced with no compute around them (mark every
//                tensor ready, wait()), which gives a second figure, 1 - exposed / standalone; and
//                each rank training its share of the batch alone (no allreduce).
//   gemm-share   (one rank) GEMM seconds / step seconds: the very cblas_sgemm calls of a step
//                (kernels::mlp::Ops::matmul on the CPU with the step's shapes: forward A_l W_l, backward
//                A_lᵀ G and G W_lᵀ), timed alone, and the step's element-wise kernels likewise,
//                against the step time train_mlp measures, interleaved.
//
// Usage: train_overlap overlap|gemm-share [rounds, default 5] [features width depth batch samples epochs
//        [bucket MB]]  (defaults: 256 1024 4 512 8192 1, bucket 2 MB; 4 classes)
#include <mpi.h>

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "collectives/buckets/gradient_buckets.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "kernels/common/device.hpp"
#include "kernels/mlp/mlp.hpp"
#include "runner/tasks/train/mlp_trainer.hpp"

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

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<int> layer_sizes(const tasks::train::TrainConfig& c)
{
    std::vector<int> sizes{c.features};
    for (int l = 0; l < c.depth; ++l) sizes.push_back(c.width);
    sizes.push_back(c.classes);
    return sizes;
}

/** Tensor sizes in the trainer's production order: b_{L-1}, W_{L-1}, ..., b_0, W_0. */
std::vector<std::size_t> production_sizes(const std::vector<int>& s)
{
    std::vector<std::size_t> sizes;
    for (int l = static_cast<int>(s.size()) - 2; l >= 0; --l) {
        sizes.push_back(static_cast<std::size_t>(s[l + 1]));
        sizes.push_back(static_cast<std::size_t>(s[l]) * s[l + 1]);
    }
    return sizes;
}

int steps_of(const tasks::train::TrainConfig& c) { return c.epochs * (c.samples / c.batch); }
double step_seconds(const tasks::train::TrainResult& r, const tasks::train::TrainConfig& c)
{
    return c.batch / r.samples_per_s;
}

int overlap(const tasks::train::TrainConfig& base, int rounds, collectives::Communicator& world)
{
    if (!collectives::mpi::threads_may_call_mpi()) throw std::runtime_error("overlap needs MPI_THREAD_MULTIPLE");
    const int steps = steps_of(base);
    const auto sizes = production_sizes(layer_sizes(base));
    // Per round, means over ranks: [progress off, on] x {step, compute, comm, exposed, hidden, 1 - exposed/standalone}
    std::vector<std::vector<double>> step(2), compute(2), comm(2), exposed(2), hidden(2), hidden_alone(2);
    std::vector<double> standalone_comm, solo_step;
    collectives::GradientBuckets standalone(world, sizes, base.bucket_bytes, base.first_bucket_bytes, false);
    const auto self = world.split(world.rank(), 0);  // the no-communication anchor: each rank alone, its share
    const auto mean = [&](double x) { return world.allreduce_value(x, collectives::ReduceOp::sum) / world.size(); };
    for (int round = 0; round < rounds; ++round) {
        for (int turn = 0; turn < 4; ++turn) {
            const int who = (turn + round) % 4;  // 0: progress off, 1: on, 2: standalone allreduce, 3: solo
            if (who == 2) {
                double total = 0;
                for (int s = 0; s < steps; ++s) {
                    world.barrier();
                    const auto start = Clock::now();
                    for (std::size_t i = 0; i < sizes.size(); ++i) standalone.mark_ready(i);
                    (void)standalone.wait();
                    total += since(start);
                }
                standalone_comm.push_back(mean(total / steps));
                continue;
            }
            auto c = base;
            if (who == 3) c.batch /= world.size(), c.samples /= world.size();
            c.progress_thread = who == 1;
            world.barrier();
            const auto r = tasks::train::train_mlp(c, who == 3 ? *self : world);
            if (!r.failure.empty()) throw std::runtime_error(r.failure);
            if (who == 3) {
                solo_step.push_back(mean(step_seconds(r, c)));
                continue;
            }
            step[who].push_back(mean(step_seconds(r, c)));
            compute[who].push_back(mean(r.compute_seconds / steps));
            comm[who].push_back(mean(r.comm_seconds / steps));
            exposed[who].push_back(mean(r.comm_exposed_seconds / steps));
            hidden[who].push_back(mean(1.0 - r.comm_exposed_seconds / r.comm_seconds));
        }
        for (int who = 0; who < 2; ++who) {
            hidden_alone[who].push_back(1.0 - exposed[who].back() / standalone_comm.back());
        }
    }
    if (world.rank() != 0) return 0;
    const auto plan = collectives::plan_buckets(sizes, sizeof(float), base.bucket_bytes, base.first_bucket_bytes);
    std::size_t floats = 0;
    for (const auto n : sizes) floats += n;
    std::printf("train_mlp overlap: %d ranks in one group; features %d, width %d, depth %d, classes %d, batch %d "
                "(%d per rank), %d steps; %zu tensors, %.1f MB of gradients in %zu buckets (%.1f MB cap, %.1f MB "
                "first); OpenBLAS threads per rank %d; MPI_Iallreduce algorithm %s; medians of %d interleaved rounds, "
                "means over ranks\n",
                world.size(), base.features, base.width, base.depth, base.classes, base.batch,
                base.batch / world.size(), steps, sizes.size(), floats * 4.0 / 1e6, plan.back().bucket + 1,
                base.bucket_bytes / 1048576.0, base.first_bucket_bytes / 1048576.0, openblas_get_num_threads(),
                iallreduce_algorithm().c_str(), rounds);
    std::printf("%-26s %8s %9s %8s %9s %8s %16s\n", "ms per step", "step", "compute", "comm", "exposed", "hidden",
                "1-exp/standalone");
    const char* names[] = {"progress_thread off", "progress_thread on"};
    for (int who = 0; who < 2; ++who) {
        std::printf("%-26s %8.2f %9.2f %8.2f %9.2f %8.3f %16.3f\n", names[who], median(step[who]) * 1e3,
                    median(compute[who]) * 1e3, median(comm[who]) * 1e3, median(exposed[who]) * 1e3,
                    median(hidden[who]), median(hidden_alone[who]));
    }
    std::printf("%-26s %8s %9s %8.2f %9s\n", "anchor: allreduce alone", "", "", median(standalone_comm) * 1e3,
                "(= comm)");
    std::printf("%-26s %8.2f %9s\n", "anchor: each rank alone", median(solo_step) * 1e3,
                "(its share of the batch, no allreduce)");
    std::printf("%-26s %8.2f %9s\n", "alone + allreduce alone", (median(solo_step) + median(standalone_comm)) * 1e3,
                "(a step with no overlap at all)");
    for (int who = 0; who < 2; ++who) {
        std::printf("RATIO overlap np=%d progress_thread=%s iallreduce=%s: hidden %.3f (1 - exposed/comm; target >= "
                    "0.5); 1 - exposed/standalone %.3f; step %.1f ms = %.2f x alone\n",
                    world.size(), who == 1 ? "on" : "off", iallreduce_algorithm().c_str(), median(hidden[who]),
                    median(hidden_alone[who]), median(step[who]) * 1e3, median(step[who]) / median(solo_step));
    }
    return 0;
}

/** The element-wise kernels and GEMMs of one training step with `c`'s shapes, on scratch buffers. */
struct StepReplay {
    explicit StepReplay(const tasks::train::TrainConfig& c) : s(layer_sizes(c)), rows(c.batch)
    {
        const auto fill = [](std::vector<float>& v, std::size_t n, float scale) {
            v.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                v[i] = scale * (static_cast<float>((i * 2654435761u) % 2001) / 1000 - 1);  // in [-scale, scale]
            }
        };
        for (std::size_t l = 0; l + 1 < s.size(); ++l) {
            w.emplace_back(), b.emplace_back(), dw.emplace_back(), vel.emplace_back();
            fill(w.back(), static_cast<std::size_t>(s[l]) * s[l + 1], 0.05f);
            fill(b.back(), s[l + 1], 0.01f), fill(dw.back(), w.back().size(), 0), fill(vel.back(), w.back().size(), 0);
        }
        for (const int n : s) acts.emplace_back(), fill(acts.back(), static_cast<std::size_t>(rows) * n, 1);
        fill(grad, static_cast<std::size_t>(rows) * *std::max_element(s.begin(), s.end()), 0.01f);
        fill(prev, grad.size(), 0), fill(db, grad.size(), 0);
        labels.resize(rows);
        for (int r = 0; r < rows; ++r) labels[r] = r % s.back();
    }
    // What forward() and backward() call, GEMMs only or element-wise only.
    void run(bool gemm)
    {
        const int L = static_cast<int>(s.size()) - 1;
        for (int l = 0; l < L; ++l) {
            if (gemm) {
                mlp.matmul(false, false, rows, s[l + 1], s[l], 1, acts[l].data(), w[l].data(), 0, acts[l + 1].data());
            } else {
                mlp.add_bias(rows, s[l + 1], b[l].data(), l + 1 < L, acts[l + 1].data());
            }
        }
        if (!gemm) mlp.softmax_cross_entropy(rows, s[L], acts[L].data(), labels.data(), 1.0f / rows, grad.data());
        for (int l = L - 1; l >= 0; --l) {
            if (!gemm) mlp.column_sums(rows, s[l + 1], grad.data(), db.data());
            if (gemm) mlp.matmul(true, false, s[l], s[l + 1], rows, 1, acts[l].data(), grad.data(), 0, dw[l].data());
            if (l == 0) break;
            if (gemm) mlp.matmul(false, true, rows, s[l], s[l + 1], 1, grad.data(), w[l].data(), 0, prev.data());
            else mlp.relu_backward(static_cast<std::size_t>(rows) * s[l], acts[l].data(), prev.data());
        }
        if (gemm) return;
        for (std::size_t l = 0; l < w.size(); ++l) {
            mlp.sgd_momentum(dw[l].size(), 1e-9f, 0.9f, dw[l].data(), vel[l].data(), w[l].data());
        }
    }
    kernels::mlp::Ops mlp{kernels::Device::cpu()};  // what the trainer calls on the CPU
    std::vector<int> s;
    int rows;
    std::vector<std::vector<float>> w, b, dw, vel, acts;
    std::vector<float> grad, prev, db;
    std::vector<std::int32_t> labels;
};

int gemm_share(const tasks::train::TrainConfig& c, int rounds, collectives::Communicator& world)
{
    if (world.size() != 1) throw std::runtime_error("gemm-share runs on one rank");
    const int steps = steps_of(c);
    StepReplay replay(c);
    std::vector<double> step, gemm, elementwise, share;
    for (int round = 0; round < rounds; ++round) {
        double g = 0, e = 0, t = 0;
        for (int turn = 0; turn < 3; ++turn) {
            const int who = (turn + round) % 3;
            if (who == 0) {
                const auto r = tasks::train::train_mlp(c, world);
                if (!r.failure.empty()) throw std::runtime_error(r.failure);
                t = step_seconds(r, c);
            } else {
                replay.run(who == 1);  // warm-up
                const auto start = Clock::now();
                for (int k = 0; k < steps; ++k) replay.run(who == 1);
                (who == 1 ? g : e) = since(start) / steps;
            }
        }
        step.push_back(t), gemm.push_back(g), elementwise.push_back(e), share.push_back(g / t);
    }
    double flops = 0;
    const auto s = layer_sizes(c);
    for (std::size_t l = 0; l + 1 < s.size(); ++l) flops += 2.0 * c.batch * s[l] * s[l + 1] * (l == 0 ? 2 : 3);
    const double other = median(step) - median(gemm) - median(elementwise);
    std::printf("GEMM share of a train step, one rank: features %d, width %d, depth %d, classes %d, batch %d, %d steps "
                "per round; OpenBLAS threads %d; medians of %d interleaved rounds\n",
                c.features, c.width, c.depth, c.classes, c.batch, steps, openblas_get_num_threads(), rounds);
    std::printf("  step (train_mlp)       %9.3f ms   %6.1f GFLOP/s of GEMM work\n", median(step) * 1e3,
                flops / median(step) / 1e9);
    std::printf("  GEMMs alone            %9.3f ms   %6.1f GFLOP/s\n", median(gemm) * 1e3, flops / median(gemm) / 1e9);
    std::printf("  element-wise alone     %9.3f ms   (bias, ReLU, softmax, column sums, SGD update)\n",
                median(elementwise) * 1e3);
    std::printf("  rest (buckets, input)  %9.3f ms\n", other * 1e3);
    std::printf("RATIO gemm-share features=%d width=%d depth=%d batch=%d blas-threads=%d: %.3f (GEMM s / step s); "
                "element-wise %.3f\n",
                c.features, c.width, c.depth, c.batch, openblas_get_num_threads(), median(share),
                median(elementwise) / median(step));
    return 0;
}

int run(int argc, char** argv)
{
    const std::string what = argc > 1 ? argv[1] : "";
    if (what != "overlap" && what != "gemm-share") {
        std::fprintf(stderr, "usage: train_overlap overlap|gemm-share [rounds] [features width depth batch samples "
                             "epochs [bucket MB]]\n");
        return 2;
    }
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    tasks::train::TrainConfig c;
    c.features = 256, c.width = 1024, c.depth = 4, c.classes = 4, c.batch = 512, c.samples = 8192, c.epochs = 1;
    c.val_samples = 512, c.seed = 1, c.noise = 1.0f, c.lr = 0.01f;
    c.bucket_bytes = 2u << 20;
    if (argc > 8) {
        c.features = std::atoi(argv[3]), c.width = std::atoi(argv[4]), c.depth = std::atoi(argv[5]);
        c.batch = std::atoi(argv[6]), c.samples = std::atoi(argv[7]), c.epochs = std::atoi(argv[8]);
    }
    if (argc > 9) c.bucket_bytes = static_cast<std::size_t>(std::atof(argv[9]) * (1 << 20));
    const auto world = collectives::mpi::world();
    if (const auto problem = tasks::train::config_problem(c, world->size()); !problem.empty()) {
        throw std::runtime_error(problem);
    }
    return what == "overlap" ? overlap(c, rounds, *world) : gemm_share(c, rounds, *world);
}

}  // namespace

int main(int argc, char** argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int code = 1;
    try {
        code = run(argc, argv);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "train_overlap: %s\n", error.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}
