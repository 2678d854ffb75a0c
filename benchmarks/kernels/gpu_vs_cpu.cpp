// The GPU-vs-CPU table (the columns of the AWS GPU-vs-CPU benchmark): matrix multiply at
// 1000, 5000, 8000, 10000 and Gaussian blur of 2048² and 4096² images at batch 1 and 2, on
// every device present. Usage: shardrun_gpu_vs_cpu [--quick] [--device cpu|cuda|all]
// With both devices it then measures a ladder of sizes per operation and prints where the GPU
// starts to win, counting what a task pays on it (copies included): `crossover: gemm n = 256`.
// Those lines set the thresholds of `device: auto` (runner/tasks/auto_device_rules.hpp, issue 26).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "kernels/blur/blur.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/seeded.hpp"
#include "kernels/gemm/gemm.hpp"

namespace {

using namespace shardrun::kernels;

struct Options {
    bool quick = false;
    bool cpu = true;
    bool gpu = true;
};

/** Best wall time of `repeats` calls of `call`. */
double best_seconds(int repeats, const std::function<void()>& call)
{
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        call();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

/** seconds of one float32 n×n×n product: the kernel's own best-of timing (cuBLAS: events, warm-up excluded). */
double gemm_seconds(const Device& device, int n)
{
    std::vector<float> a(std::size_t(n) * n), b(a.size()), c(a.size());
    fill_seeded(a.data(), a.size(), 1, 0, -1.0f, 1.0f);
    fill_seeded(b.data(), b.size(), 2, 0, -1.0f, 1.0f);
    const int repeats = device.kind == DeviceKind::cuda ? 5 : (n <= 2000 ? 3 : 1);
    return gemm(device, {n, n, n}, a.data(), b.data(), c.data(), repeats).seconds;
}

/** seconds of one blur of `batch` size×size images, sigma 2 (GPU: one warm-up call first, copies included). */
double blur_seconds(const Device& device, int size, int batch)
{
    const BlurShape shape{batch, size, size, 2.0};
    std::vector<float> in(std::size_t(batch) * size * size), out(in.size());
    fill_seeded(in.data(), in.size(), 3, 0, 0.0f, 1.0f);
    const auto call = [&] { blur(device, shape, in.data(), out.data()); };
    call();  // warm-up: CUDA context, module load, first-touch of the buffers
    return best_seconds(3, call);
}

/**
 * Wall seconds of one whole float32 n×n×n gemm call, as a `task: gemm` on that device pays it:
 * on the GPU the upload of A and B and the download of C are included (best of 3, after an
 * untimed call that makes the context and the cuBLAS handle).
 */
double gemm_call_seconds(const Device& device, int n)
{
    std::vector<float> a(std::size_t(n) * n), b(a.size()), c(a.size());
    fill_seeded(a.data(), a.size(), 1, 0, -1.0f, 1.0f);
    fill_seeded(b.data(), b.size(), 2, 0, -1.0f, 1.0f);
    const auto call = [&] { gemm(device, {n, n, n}, a.data(), b.data(), c.data(), 1); };
    call();
    return best_seconds(3, call);
}

/**
 * Times `time_on` on both devices at each size and prints one line per size, then
 * `crossover: <name> = X`: the smallest size from which the GPU wins at every larger measured
 * size too (one lucky point does not move the threshold), or "none" when the CPU won throughout.
 */
void crossover(const std::string& operation, const std::string& name, const std::vector<int>& sizes,
               const std::function<double(const Device&, int)>& time_on)
{
    std::vector<bool> gpu_wins;
    for (const int size : sizes) {
        const double cpu = time_on(Device::cpu(), size);
        const double gpu = time_on(Device::cuda(0), size);
        gpu_wins.push_back(gpu < cpu);
        std::cout << fmt::format("  {} {} = {:<6} CPU {:>10.6f} s  GPU {:>10.6f} s  {}\n", operation, name, size, cpu, gpu,
                                 gpu < cpu ? "GPU wins" : "CPU wins") << std::flush;
    }
    std::size_t from = sizes.size();
    while (from > 0 && gpu_wins[from - 1]) --from;
    if (from == sizes.size()) {
        std::cout << fmt::format("crossover: {} {} = none (the CPU won up to {})\n", operation, name, sizes.back());
    } else {
        std::cout << fmt::format("crossover: {} {} = {}\n", operation, name, sizes[from]);
    }
}

std::string cell(double seconds) { return seconds > 0 ? fmt::format("{:.4f} s", seconds) : "n/a"; }

void row(const std::string& operation, const Options& options, const std::function<double(const Device&)>& time_on)
{
    const double cpu = options.cpu ? time_on(Device::cpu()) : 0.0;
    const double gpu = options.gpu ? time_on(Device::cuda(0)) : 0.0;
    const std::string speedup = cpu > 0 && gpu > 0 ? fmt::format("{:.1f}x", cpu / gpu) : "n/a";
    std::cout << fmt::format("{:<34} {:>12} {:>12} {:>9}\n", operation, cell(cpu), cell(gpu), speedup) << std::flush;
}

Options parse(int argc, char** argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick") options.quick = true;
        else if (arg == "--device" && i + 1 < argc) {
            const std::string device = argv[++i];
            options.cpu = device != "cuda";
            options.gpu = device != "cpu";
        } else {
            throw std::invalid_argument("usage: shardrun_gpu_vs_cpu [--quick] [--device cpu|cuda|all]");
        }
    }
    return options;
}

}  // namespace

int main(int argc, char** argv)
{
    auto options = parse(argc, argv);
    const auto runtime = query_cuda_runtime();
    if (options.gpu && runtime.device_count == 0) {
        std::cout << "no GPU: " << runtime.no_device_reason << "; GPU column is n/a\n";
        options.gpu = false;
    }
    std::cout << fmt::format("CPU: {} OpenMP threads, OpenBLAS sgemm; GPU: {}\n", omp_get_max_threads(),
                             options.gpu ? cuda_device_name(0) + " (cuBLAS sgemm)" : "none");
    std::cout << "GPU warm-up is kept out of the timings: gemm times one cuBLAS call after an untimed one (CUDA events,\n"
                 "no copies); blur times the whole call after an untimed one (host<->device copies included).\n\n";
    std::cout << fmt::format("{:<34} {:>12} {:>12} {:>9}\n", "operation", "CPU time", "GPU time", "speedup");
    const std::vector<int> sizes = options.quick ? std::vector<int>{1000, 2000} : std::vector<int>{1000, 5000, 8000, 10000};
    for (const int n : sizes) {
        row(fmt::format("matrix multiply {}x{}", n, n), options, [n](const Device& d) { return gemm_seconds(d, n); });
    }
    for (const int size : options.quick ? std::vector<int>{2048} : std::vector<int>{2048, 4096}) {
        for (const int batch : {1, 2}) {
            row(fmt::format("gaussian blur {}x{} batch {}", size, size, batch), options,
                [size, batch](const Device& d) { return blur_seconds(d, size, batch); });
        }
    }
    if (options.cpu && options.gpu) {
        std::cout << "\nWhere the GPU starts to win, copies included (the thresholds of device: auto):\n";
        const auto gemm_sizes = options.quick ? std::vector<int>{64, 256, 1024} : std::vector<int>{32, 64, 128, 256, 512, 1024, 2048};
        crossover("gemm", "n", gemm_sizes, [](const Device& d, int n) { return gemm_call_seconds(d, n); });
        const auto blur_sizes = options.quick ? std::vector<int>{512, 2048, 4096}
                                              : std::vector<int>{256, 512, 1024, 2048, 4096, 8192};
        crossover("blur", "height", blur_sizes, [](const Device& d, int size) { return blur_seconds(d, size, 1); });
    }
    return 0;
}
