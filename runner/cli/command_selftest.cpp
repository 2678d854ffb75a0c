#include "runner/cli/command_selftest.hpp"

#include <fmt/format.h>

#include <iostream>
#include <vector>

#include "base/documented_error.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/selftest/selftest.hpp"
#include "runner/errors.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

void print_table(const std::vector<kernels::SelftestRow>& rows)
{
    std::cout << fmt::format("{:<14} {:<8} {:<8} {:<14} {:>10} {:>10}  {}\n", "kernel", "device", "dtype", "size",
                             "error", "threshold", "result");
    for (const auto& row : rows) {
        std::cout << fmt::format("{:<14} {:<8} {:<8} {:<14} {:>10.2e} {:>10.1e}  {}{}\n", row.kernel, row.device,
                                 row.dtype, row.size, row.error, row.threshold, row.passed ? "pass" : "FAIL",
                                 row.note.empty() ? "" : " (" + row.note + ")");
    }
}

}  // namespace

void SelftestCommand::add_options(po::options_description& options, po::positional_options_description&)
{
    options.add_options()("device", po::value(&device_)->default_value("all"),
                          "cpu, cuda or all (every CUDA device found, and the CPU)");
}

CommandDoc SelftestCommand::doc() const
{
    return {
        .description =
            "Runs every built-in kernel on small random inputs on the CPU and on each CUDA device it finds, and "
            "compares each result with a float64 reference computed on the CPU: a table of kernel, device, type, "
            "size, error and threshold, each row pass or FAIL. Without a GPU (or a CUDA build) it checks the CPU "
            "and says why there is no GPU. It needs no job file and no `mpirun`, and writes nothing.\n\n"
            "Reach for it on a new machine, driver or image before trusting its results, or when a kernel's results "
            "look wrong on one node and not on another.",
        .example = "shardrun selftest --device all",
        .exit_codes = {
            {exit_ok, "every check passed"},
            {exit_task_failed, "a check failed (its row says FAIL, the last line how many)"},
            {exit_bad_input, "usage error, or --device cuda where no CUDA device is available (one line saying why)"},
        },
    };
}

void SelftestCommand::check(const po::variables_map&)
{
    if (device_ != "cpu" && device_ != "cuda" && device_ != "all") {
        SHARDRUN_THROW(UsageError, "selftest: --device '" + device_ + "' is not allowed; allowed: cpu, cuda, all");
    }
}

int SelftestCommand::run()
{
    const auto runtime = kernels::query_cuda_runtime();
    std::vector<kernels::Device> devices;
    if (device_ != "cuda") devices.push_back(kernels::Device::cpu());
    if (device_ != "cpu") {
        if (runtime.device_count == 0) {
            std::cout << "no CUDA device: " << runtime.no_device_reason << "\n";
            if (device_ == "cuda") SHARDRUN_THROW_DOCUMENTED(UsageError, "docs/troubleshooting.md#cuda-unavailable",
                                                             "selftest: --device cuda but no CUDA device is available");
            std::cout << "checking the CPU only\n";
        }
        for (int ordinal = 0; ordinal < runtime.device_count; ++ordinal) {
            std::cout << "cuda:" << ordinal << " = " << kernels::cuda_device_name(ordinal) << "\n";
            devices.push_back(kernels::Device::cuda(ordinal));
        }
    }
    std::vector<kernels::SelftestRow> rows;
    for (const auto& device : devices) {
        auto device_rows = kernels::run_selftest(device);
        rows.insert(rows.end(), device_rows.begin(), device_rows.end());
    }
    print_table(rows);
    int failures = 0;
    for (const auto& row : rows) failures += row.passed ? 0 : 1;
    std::cout << (failures == 0 ? fmt::format("selftest: all {} checks passed\n", rows.size())
                                : fmt::format("selftest: {} of {} checks FAILED\n", failures, rows.size()));
    return failures == 0 ? exit_ok : exit_task_failed;
}

}  // namespace shardrun::cli
