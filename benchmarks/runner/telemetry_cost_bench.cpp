// What GPU telemetry costs a task (issue 38, point 2: <= 1 % of task time), against the stand-in
// NVML (tests/support/fake_nvml, GPM on): N tasks of a fixed CPU spin, each in a telemetry window
// (open + close, a sample each, GPM included) while the sampler thread samples every `interval`.
// Per task: the open/close time on the task's path plus the sampler thread's CPU time over N;
// the anchor is the task's own time, measured in the same run. Prints one JSON line.
//
//   telemetry_cost_bench <libnvidia-ml.so.1> <tasks> <task_ms> <interval_s> <devices>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runner/gpu/telemetry_sampler.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

void spin(std::chrono::duration<double> length)
{
    const auto until = Clock::now() + length;
    while (Clock::now() < until) {
    }
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s <libnvidia-ml.so.1> <tasks> <task_ms> <interval_s> <devices>\n", argv[0]);
        return 2;
    }
    setenv("SHARDRUN_NVML_LIBRARY", argv[1], 1);
    const int tasks = std::atoi(argv[2]);
    const std::chrono::duration<double> task(std::atof(argv[3]) / 1000.0);
    const double interval = std::atof(argv[4]);
    std::string visible;
    for (int d = 0; d < std::atoi(argv[5]); ++d) visible += (d > 0 ? "," : "") + std::to_string(d);
    std::string why_not;
    auto nvml = shardrun::gpu::NvmlLibrary::open(why_not);
    if (!nvml) {
        std::fprintf(stderr, "telemetry_cost_bench: %s\n", why_not.c_str());
        return 1;
    }
    auto devices = nvml->devices_of(visible, why_not);
    shardrun::gpu::TelemetrySampler sampler(nvml, devices, interval);
    const bool gpm = sampler.gpm_why_not().empty();
    double on_path = 0, task_seconds = 0;
    const double cpu_before = cpu_seconds(RUSAGE_SELF), main_before = cpu_seconds(RUSAGE_THREAD);
    for (int i = 0; i < tasks; ++i) {
        const auto t0 = Clock::now();
        const auto window = sampler.open();
        const auto t1 = Clock::now();
        spin(task);
        const auto t2 = Clock::now();
        const auto got = sampler.close(window);
        const auto t3 = Clock::now();
        if (gpm && !got.usage.has_gpm()) {
            std::fprintf(stderr, "telemetry_cost_bench: task %d has no GPM means\n", i);
            return 1;
        }
        on_path += std::chrono::duration<double>((t1 - t0) + (t3 - t2)).count();
        task_seconds += std::chrono::duration<double>(t2 - t1).count();
    }
    // The sampler thread's CPU: the process's minus this (the tasks') thread's.
    const double sampler_cpu = (cpu_seconds(RUSAGE_SELF) - cpu_before) - (cpu_seconds(RUSAGE_THREAD) - main_before);
    const double per_task = (on_path + std::max(0.0, sampler_cpu)) / tasks;
    std::printf("{\"tasks\": %d, \"task_s\": %.6f, \"cost_per_task_s\": %.9f, \"on_path_s\": %.9f, "
                "\"sampler_cpu_s\": %.6f, \"gpm\": %s, \"ratio\": %.6f}\n",
                tasks, task_seconds / tasks, per_task, on_path / tasks, sampler_cpu, gpm ? "true" : "false",
                per_task / (task_seconds / tasks));
    return 0;
}
