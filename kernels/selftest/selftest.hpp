#pragma once

#include <string>
#include <vector>

#include "kernels/common/device.hpp"

namespace shardrun::kernels {

/** One check of `shardrun selftest`: a kernel on a device against its float64 CPU reference. */
struct SelftestRow {
    std::string kernel;    ///< "gemm"
    std::string device;    ///< "cpu", "cuda:0"
    std::string dtype;     ///< "float32"
    std::string size;      ///< "65x33x47"
    double error = 0.0;    ///< max |got − want| / max |want| (montecarlo vs closed form: |Δ| / standard error)
    double threshold = 0.0;
    bool passed = false;
    std::string note;      ///< the exception when the kernel threw
};

/** One check: which kernel, which element type, and the function that runs it (may throw). */
struct SelftestCase {
    const char* kernel;  ///< the kernel's name; "<kernel>/<variant>" for a second check of one kernel
    const char* dtype;
    SelftestRow (*run)(const Device& device);
};

/**
 * Every check, in the order run_selftest() runs them: each kernel folder's
 * kernels/<name>/<name>_check.cpp defines `std::vector<SelftestCase> <name>_selftest_cases()`, and
 * the build collects them (generated from selftest_case_list.cpp.in).
 */
const std::vector<SelftestCase>& selftest_cases_list();

/** Runs every kernel on small seeded random inputs on `device`; never throws. */
std::vector<SelftestRow> run_selftest(const Device& device);

}  // namespace shardrun::kernels
