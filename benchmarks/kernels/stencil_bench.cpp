// blur and heat2d bandwidth against a STREAM-style triad, a[i] = b[i] + s·c[i], run here.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/heat2d/heat2d.hpp"

namespace {

using namespace shardrun::kernels;

void set_bandwidth(benchmark::State& state, double bytes_per_iteration)
{
    state.counters["GB/s"] = benchmark::Counter(bytes_per_iteration / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void stream_triad(benchmark::State& state)
{
    const std::int64_t n = std::int64_t{1} << 24;  // 3 x 128 MiB: far beyond any cache
    std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) a[i] = 0.0, b[i] = 1.0, c[i] = 2.0;  // first touch by the same threads
    const double s = 3.0;
    for (auto _ : state) {
#pragma omp parallel for schedule(static)
        for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
        benchmark::DoNotOptimize(a.get());
    }
    set_bandwidth(state, 24.0 * n);  // STREAM's count: read b, c; write a
}

// 2048² float64, 40 steps a call, credited 16 B/point a step: a step done on its own reads
// the grid and writes it once. The kernel fuses up to 4 steps in one sweep over memory, so
// what it moves is 16 B/point a sweep; this figure is the step-by-step traffic it saves,
// comparable with the triad's as time for the same work.
void heat2d_bandwidth(benchmark::State& state)
{
    Heat2dParams params{state.range(0), state.range(0), 0.1, 0.0, 40};
    params.dt = 0.8 * heat2d_stable_dt(params);
    auto field = heat2d_initial(params);
    for (auto _ : state) heat2d(Device::cpu(), params, field.data());
    set_bandwidth(state, 16.0 * params.nx * params.ny * params.steps);
}

// 2 images of 2048² float32, sigma 2, credited 16 B/pixel: two separate passes, each reading
// and writing the batch. The kernel fuses them and moves 8 B/pixel (input once, output once).
void blur_bandwidth(benchmark::State& state)
{
    const BlurShape shape{2, state.range(0), state.range(0), 2.0};
    std::vector<float> in(shape.images * shape.height * shape.width), out(in.size());
    fill_seeded(in.data(), in.size(), 1, 0, 0.0f, 1.0f);
    for (auto _ : state) blur(Device::cpu(), shape, in.data(), out.data());
    set_bandwidth(state, 16.0 * double(in.size()));
}

BENCHMARK(stream_triad)->Name("stream/triad")->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(heat2d_bandwidth)->Name("heat2d")->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);
BENCHMARK(blur_bandwidth)->Name("blur")->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);

}  // namespace
