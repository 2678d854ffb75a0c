#include "runner/run/loop/gpu_admission.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/layout/gpu_check_json.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/device_check/device_check.hpp"
#include "runner/gpu/admission_rule.hpp"
#include "runner/gpu/device_evidence.hpp"
#include "runner/gpu/device_fault_source.hpp"
#include "runner/gpu/gpu_spec_table.hpp"
#include "runner/gpu/quarantine.hpp"

namespace shardrun::run {
namespace {

// The check's fixed shape: long enough for clocks to settle and a throttled GPU to show, short
// enough for every rank (README "GPU admission": about a second per GPU, at most ~3 s on an L4 in fp64).
constexpr std::int64_t gemm_n = 4096;
constexpr std::int64_t copy_bytes = 256LL << 20;
constexpr double budget_seconds = 1.0;

kernels::CheckPrecision precision_named(const std::string& name)
{
    return name == "fp64" ? kernels::CheckPrecision::fp64
           : name == "fp32" ? kernels::CheckPrecision::fp32
                            : kernels::CheckPrecision::bf16;
}

std::vector<std::string> split(const std::string& text)
{
    std::vector<std::string> parts;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) parts.push_back(part);
    return parts;
}

/** NVML for the rank's GPUs, or null (no library, a device it does not know): the check runs without its evidence. */
struct Nvml {
    std::shared_ptr<gpu::NvmlLibrary> library;
    std::vector<gpu::nvml::Device> devices;
};

Nvml open_nvml(const env::DeviceBinding& binding)
{
    std::string why_not;
    Nvml nvml{gpu::NvmlLibrary::open(why_not), {}};
    if (nvml.library) nvml.devices = nvml.library->devices_of(binding.visible_id, why_not);
    return nvml;
}

/** Checks the i-th GPU of the binding: its row (without the verdict) and what the rule needs. */
std::pair<io::GpuCheckRow, gpu::GpuMeasure> check_one(const env::RunEnvironment& machine, int i, const Nvml& nvml,
                                                      const std::string& precision)
{
    const auto& binding = machine.device;
    const int ordinal = binding.ordinal + i;
    io::GpuCheckRow row;
    row.rank = machine.topology.world_rank;
    row.array_index = static_cast<std::int32_t>(machine.array.index);
    row.host = machine.topology.host;
    row.device = "cuda:" + std::to_string(ordinal);
    const auto visible = split(binding.visible_id);
    row.visible_id = i < static_cast<int>(visible.size()) ? visible[i] : binding.visible_id;
    row.precision = precision;
    gpu::GpuMeasure measure;
    const auto started = std::chrono::steady_clock::now();
    try {
        const auto timing = kernels::device_check(kernels::Device::cuda(ordinal), precision_named(precision), gemm_n,
                                                  copy_bytes, budget_seconds);
        row.gemm_tflops = measure.gemm_tflops = timing.gemm_tflops;
        row.copy_gbps = measure.copy_gbps = timing.copy_gbps;
    } catch (const std::exception& error) {
        measure.failure = error.what();
    }
    row.check_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::vector<std::string> errors;
    std::string name;
    if (i < static_cast<int>(nvml.devices.size())) {
        const auto evidence = gpu::read_device_evidence(*nvml.library, nvml.devices[i]);
        name = evidence.name;
        row.uuid = evidence.uuid;
        row.sm_clock_mhz = evidence.sm_clock_mhz;
        row.sm_clock_max_mhz = evidence.sm_clock_max_mhz;
        row.mem_clock_mhz = evidence.mem_clock_mhz;
        row.throttle = measure.throttle = evidence.throttle;
        errors = evidence.errors;
    }
    // Xid events since the rank's sampler started watching (before this check): a GPU that raised one is not given work.
    if (const auto source = gpu::device_fault_source()) {
        const auto events = source->totals(ordinal);
        if (events.xid_events > 0) errors.insert(errors.begin(), gpu::events_text(events));
    }
    if (name.empty()) name = kernels::cuda_device_name(ordinal);
    const auto spec = gpu::spec_of(name);
    row.model = measure.model = spec ? std::string(spec->model) : name;
    measure.spec_peak = spec ? spec->peak(precision) : 0;
    row.errors = measure.errors = fmt::format("{}", fmt::join(errors, "; "));
    return {row, measure};
}

nlohmann::json measure_json(const gpu::GpuMeasure& m)
{
    return {{"model", m.model}, {"gemm", m.gemm_tflops}, {"copy", m.copy_gbps}, {"peak", m.spec_peak},
            {"errors", m.errors}, {"failure", m.failure}, {"throttle", m.throttle}};
}

gpu::GpuMeasure measure_of(const nlohmann::json& j)
{
    return {j["model"], j["gemm"], j["copy"], j["peak"], j["errors"], j["failure"], j["throttle"]};
}

/** Every rank's measures, in rank order, and the index of this rank's first. Collective. */
std::pair<std::vector<gpu::GpuMeasure>, std::size_t> exchange_measures(collectives::Communicator& world,
                                                              const std::vector<gpu::GpuMeasure>& mine)
{
    auto list = nlohmann::json::array();
    for (const auto& m : mine) list.push_back(measure_json(m));
    std::vector<gpu::GpuMeasure> all;
    std::size_t first = 0;
    const auto texts = collectives::allgather_strings(world, list.dump());
    for (std::size_t r = 0; r < texts.size(); ++r) {
        if (static_cast<int>(r) == world.rank()) first = all.size();
        for (const auto& j : nlohmann::json::parse(texts[r])) all.push_back(measure_of(j));
    }
    return {all, first};
}

/**
 * This rank's turn among the ranks that share its GPU (more ranks than GPUs on a node), and the
 * number of turns: ranks that share a GPU check it one after another, so that none measures the
 * other's load. Collective.
 */
std::pair<int, int> turn_of(collectives::Communicator& world, const env::RunEnvironment& machine)
{
    const auto mine = machine.device.cuda ? machine.topology.host + " " + machine.device.visible_id : std::string();
    const auto all = collectives::allgather_strings(world, mine);
    int turn = 0, turns = 1;
    std::map<std::string, int> seen;
    for (std::size_t r = 0; r < all.size(); ++r) {
        if (all[r].empty()) continue;
        const int index = seen[all[r]]++;
        turns = std::max(turns, index + 1);
        if (static_cast<int>(r) == world.rank()) turn = index;
    }
    return {turn, turns};
}

}  // namespace

std::string admission_precision(const job::JobSpec& spec)
{
    if (!spec.gpu_admission.precision.empty()) return spec.gpu_admission.precision;
    std::string dtype;
    try {
        dtype = spec.params.text_or("dtype", "");
    } catch (const std::exception&) {
        // a dtype that is not a word is no precision
    }
    return dtype == "float64" ? "fp64" : dtype == "float32" ? "fp32" : "bf16";
}

Admission admit_rank_gpus(collectives::Communicator& world, const job::JobSpec& spec, const env::RunEnvironment& machine,
                          DeviceHealth* health)
{
    if (!spec.gpu_admission.enabled) return {};
    const auto precision = admission_precision(spec);
    std::vector<io::GpuCheckRow> rows;
    std::vector<gpu::GpuMeasure> mine;
    const auto [turn, turns] = turn_of(world, machine);
    for (int t = 0; t < turns; ++t) {
        if (machine.device.cuda && t == turn) {
            const auto nvml = open_nvml(machine.device);
            for (int i = 0; i < machine.device.count; ++i) {
                auto [row, measure] = check_one(machine, i, nvml, precision);
                rows.push_back(std::move(row));
                mine.push_back(std::move(measure));
            }
        }
        if (turns > 1) collectives::allgather_strings(world, "");  // the next turn starts when this one ended
    }
    const auto [all, first] = exchange_measures(world, mine);
    const auto verdicts = gpu::judge_admission(all, {spec.gpu_admission.min_fraction, spec.gpu_admission.spec_fraction});
    std::vector<std::string> refused;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& verdict = verdicts[first + i];
        auto& row = rows[i];
        row.floor_tflops = verdict.floor_tflops >= 0 ? verdict.floor_tflops : std::numeric_limits<double>::quiet_NaN();
        row.reason = verdict.reason;
        if (verdict.admitted) continue;
        if (health == nullptr) {  // a group's member: its group runs every task together, so it is named, not left out
            row.reason = "would be refused (not enforced with gpus_per_task > 1): " + verdict.reason;
            continue;
        }
        row.admitted = false;
        refused.push_back(rows.size() == 1 ? verdict.reason : fmt::format("{}: {}", row.device, verdict.reason));
    }
    if (!refused.empty()) {
        const auto line = fmt::format("not admitted: {}: {}", health->device(), fmt::join(refused, "; "));
        std::cerr << fmt::format("shardrun: rank {}: {}\n", machine.topology.world_rank, line) << std::flush;
        health->refuse(line);
    }
    // A dynamic schedule leaves unclaimed tasks where they are: the run must know that no rank will claim them.
    const auto refused_ranks = collectives::allgather_strings(world, refused.empty() ? "" : "refused");
    const bool every = std::all_of(refused_ranks.begin(), refused_ranks.end(), [](const auto& r) { return !r.empty(); });
    return {std::move(rows), every};
}

}  // namespace shardrun::run
