// gemm through shardrun's kernel against the same OpenBLAS call made directly.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "kernels/common/seeded.hpp"
#include "kernels/gemm/gemm.hpp"

namespace {

using namespace shardrun::kernels;

struct Matrices {
    explicit Matrices(int n) : a(std::size_t(n) * n), b(a.size()), c(a.size())
    {
        fill_seeded(a.data(), a.size(), 1, 0, -1.0f, 1.0f);
        fill_seeded(b.data(), b.size(), 2, 0, -1.0f, 1.0f);
    }
    std::vector<float> a, b, c;
};

void set_gflops(benchmark::State& state, int n)
{
    const double flops = 2.0 * n * double(n) * n;
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void gemm_shardrun(benchmark::State& state)
{
    const int n = static_cast<int>(state.range(0));
    Matrices m(n);
    for (auto _ : state) gemm(Device::cpu(), {n, n, n}, m.a.data(), m.b.data(), m.c.data(), 1);
    set_gflops(state, n);
}

void gemm_openblas(benchmark::State& state)
{
    const int n = static_cast<int>(state.range(0));
    Matrices m(n);
    for (auto _ : state) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, m.a.data(), n, m.b.data(), n, 0.0f,
                    m.c.data(), n);
    }
    set_gflops(state, n);
}

void timed(benchmark::internal::Benchmark* b)
{
    b->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);
}

// Interleaved per size, so both see the same machine state.
BENCHMARK(gemm_openblas)->Name("gemm/openblas")->Arg(1000)->Apply(timed);
BENCHMARK(gemm_shardrun)->Name("gemm/shardrun")->Arg(1000)->Apply(timed);
BENCHMARK(gemm_openblas)->Name("gemm/openblas")->Arg(2000)->Apply(timed);
BENCHMARK(gemm_shardrun)->Name("gemm/shardrun")->Arg(2000)->Apply(timed);
BENCHMARK(gemm_openblas)->Name("gemm/openblas")->Arg(4000)->Apply(timed)->MinTime(1.0);
BENCHMARK(gemm_shardrun)->Name("gemm/shardrun")->Arg(4000)->Apply(timed)->MinTime(1.0);

}  // namespace
