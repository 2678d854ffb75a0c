// Kernel benchmarks: every figure is printed as a ratio against an anchor measured in this
// same run (direct OpenBLAS for gemm, a STREAM-style triad for blur and heat2d).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <omp.h>

#include <iostream>

#include "bench_report.hpp"

namespace shardrun::bench {

void RecordingReporter::ReportRuns(const std::vector<Run>& runs)
{
    ConsoleReporter::ReportRuns(runs);
    // The median of the repetitions when there are several (a shared machine is noisy), else the one run.
    for (const auto& run : runs) {
        const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
        if (run.error_occurred || !(median || run.run_type == Run::RT_Iteration)) continue;
        const auto name = run.run_name.function_name + (run.run_name.args.empty() ? "" : "/" + run.run_name.args);
        if (median || !medians_.count(name)) runs_[name] = run.counters;
        if (median) medians_.insert(name);
    }
}

double RecordingReporter::value(const std::string& name, const std::string& counter) const
{
    const auto run = runs_.find(name);
    if (run == runs_.end()) return 0.0;
    const auto found = run->second.find(counter);
    return found == run->second.end() ? 0.0 : found->second.value;
}

namespace {

void print_ratio(const std::string& what, double value, double anchor, const char* unit, const char* anchor_name,
                 double target)
{
    if (value <= 0 || anchor <= 0) return;
    std::cout << fmt::format("  {:<22} {:>9.2f} {} / {} {:>9.2f} {} = {:.2f}  (target >= {:.2f})\n", what, value,
                             unit, anchor_name, anchor, unit, value / anchor, target);
}

}  // namespace

void print_ratios(const RecordingReporter& r)
{
    std::cout << "\nratios against anchors measured in this run (" << omp_get_max_threads() << " threads):\n";
    for (const char* n : {"1000", "2000", "4000"}) {
        print_ratio(fmt::format("gemm n={} (float32)", n), r.value(fmt::format("gemm/shardrun/{}", n), "GFLOP/s"),
                    r.value(fmt::format("gemm/openblas/{}", n), "GFLOP/s"), "GFLOP/s", "OpenBLAS", 0.95);
    }
    const double triad = r.value("stream/triad", "GB/s");
    print_ratio("heat2d 2048x2048 f64", r.value("heat2d/2048", "GB/s"), triad, "GB/s", "triad", 0.6);
    print_ratio("blur 2x2048x2048 s=2", r.value("blur/2048", "GB/s"), triad, "GB/s", "triad", 0.6);
    const double paths = r.value("montecarlo/4194304", "paths/s");
    if (paths > 0) {
        std::cout << fmt::format("  montecarlo             {:>9.2f} Mpaths/s on {} threads = {:.2f} Mpaths/s per core\n",
                                 paths / 1e6, omp_get_max_threads(), paths / 1e6 / omp_get_max_threads());
    }
}

}  // namespace shardrun::bench

int main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    shardrun::bench::RecordingReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    shardrun::bench::print_ratios(reporter);
    benchmark::Shutdown();
    return 0;
}
