// montecarlo paths per second (the ratio table divides by the thread count: per core).
#include <benchmark/benchmark.h>

#include "kernels/montecarlo/montecarlo.hpp"

namespace {

using namespace shardrun::kernels;

void montecarlo_paths(benchmark::State& state)
{
    const OptionParams option;
    std::int64_t first = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(montecarlo_sums(Device::cpu(), option, 1, first, state.range(0)));
        first += state.range(0);
    }
    state.counters["paths/s"] =
        benchmark::Counter(static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(montecarlo_paths)->Name("montecarlo")->Arg(std::int64_t{1} << 22)->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);

}  // namespace
