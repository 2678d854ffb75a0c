#include "runner/submit/submit_resources.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>
#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"  // closest_name
#include "runner/submit/cloud_container.hpp"

namespace shardrun::submit {
namespace {

// Compute Engine's GPU machine types (cloud.google.com/compute/docs/gpus): A2, A3 and G2 come
// with their GPUs; T4, V100, P100 and P4 are attached to N1 machines, here n1-highmem (8 vCPU and
// 52 GB per GPU: n1-standard-8's 30 GB would not hold the default 30 GiB beside the agent).
constexpr std::array<GcpMachine, 32> machine_table{{
    {"nvidia-l4", 1, "g2-standard-8", 8, 32, true},
    {"nvidia-l4", 2, "g2-standard-24", 24, 96, true},
    {"nvidia-l4", 4, "g2-standard-48", 48, 192, true},
    {"nvidia-l4", 8, "g2-standard-96", 96, 384, true},
    {"nvidia-tesla-a100", 1, "a2-highgpu-1g", 12, 85, true},
    {"nvidia-tesla-a100", 2, "a2-highgpu-2g", 24, 170, true},
    {"nvidia-tesla-a100", 4, "a2-highgpu-4g", 48, 340, true},
    {"nvidia-tesla-a100", 8, "a2-highgpu-8g", 96, 680, true},
    {"nvidia-tesla-a100", 16, "a2-megagpu-16g", 96, 1360, true},
    {"nvidia-a100-80gb", 1, "a2-ultragpu-1g", 12, 170, true},
    {"nvidia-a100-80gb", 2, "a2-ultragpu-2g", 24, 340, true},
    {"nvidia-a100-80gb", 4, "a2-ultragpu-4g", 48, 680, true},
    {"nvidia-a100-80gb", 8, "a2-ultragpu-8g", 96, 1360, true},
    {"nvidia-h100-80gb", 1, "a3-highgpu-1g", 26, 234, true},
    {"nvidia-h100-80gb", 2, "a3-highgpu-2g", 52, 468, true},
    {"nvidia-h100-80gb", 4, "a3-highgpu-4g", 104, 936, true},
    {"nvidia-h100-80gb", 8, "a3-highgpu-8g", 208, 1872, true},
    {"nvidia-h100-mega-80gb", 8, "a3-megagpu-8g", 208, 1872, true},
    {"nvidia-h200-141gb", 8, "a3-ultragpu-8g", 224, 2952, true},
    {"nvidia-tesla-t4", 1, "n1-highmem-8", 8, 52, false},
    {"nvidia-tesla-t4", 2, "n1-highmem-16", 16, 104, false},
    {"nvidia-tesla-t4", 4, "n1-highmem-32", 32, 208, false},
    {"nvidia-tesla-v100", 1, "n1-highmem-8", 8, 52, false},
    {"nvidia-tesla-v100", 2, "n1-highmem-16", 16, 104, false},
    {"nvidia-tesla-v100", 4, "n1-highmem-32", 32, 208, false},
    {"nvidia-tesla-v100", 8, "n1-highmem-64", 64, 416, false},
    {"nvidia-tesla-p100", 1, "n1-highmem-8", 8, 52, false},
    {"nvidia-tesla-p100", 2, "n1-highmem-16", 16, 104, false},
    {"nvidia-tesla-p100", 4, "n1-highmem-32", 32, 208, false},
    {"nvidia-tesla-p4", 1, "n1-highmem-8", 8, 52, false},
    {"nvidia-tesla-p4", 2, "n1-highmem-16", 16, 104, false},
    {"nvidia-tesla-p4", 4, "n1-highmem-32", 32, 208, false},
}};

// What the OS and the Batch agent keep of a VM's memory (the default stays this far below it).
constexpr long agent_reserve_mib = 2048;

long machine_memory_mib(const GcpMachine& machine) { return machine.memory_gib * 1024 - agent_reserve_mib; }

void refuse_option(const std::string& option, std::string_view what)
{
    if (!option.empty()) SHARDRUN_THROW(UsageError, std::string("submit: ") + option + std::string(what));
}

}  // namespace

long gpus_per_node(const SubmitOptions& options) { return options.ranks_per_node * options.gpus_per_rank; }

long parse_size_mib(const std::string& text, std::string_view option)
{
    static const std::regex pattern(R"(^(\d{1,9})\s*(|[mM](?:[iI]?[bB])?|[gG](?:[iI]?[bB])?|[tT](?:[iI]?[bB])?)$)");
    std::smatch m;
    if (!std::regex_match(text, m, pattern) || std::stol(m[1].str()) <= 0) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: {} '{}' is not a size; use a whole number with M, G or T "
                                               "(binary units, as Docker and Slurm read them; a bare number is MiB), "
                                               "e.g. 30G or 30720M", option, text));
    }
    const long number = std::stol(m[1].str());
    const char unit = m[2].length() == 0 ? 'm' : static_cast<char>(std::tolower(static_cast<unsigned char>(m[2].str()[0])));
    return unit == 't' ? number * 1024 * 1024 : unit == 'g' ? number * 1024 : number;
}

const GcpMachine* gcp_machine_for(std::string_view gpu_type, long gpus)
{
    for (const auto& machine : machine_table) {
        if (machine.gpu_type == gpu_type && machine.gpus == gpus) return &machine;
    }
    return nullptr;
}

const GcpMachine* gcp_machine_named(std::string_view name)
{
    for (const auto& machine : machine_table) {
        if (machine.name == name) return &machine;
    }
    return nullptr;
}

void refuse_unknown_gpu_type(const SubmitOptions& options)
{
    if (!options.given.count("gpu-type")) return;
    std::vector<std::string> types;
    for (const auto& row : machine_table) {
        if (std::find(types.begin(), types.end(), row.gpu_type) == types.end()) types.emplace_back(row.gpu_type);
    }
    if (std::find(types.begin(), types.end(), options.gpu_type) != types.end()) return;
    if (!options.machine_type.empty() && gcp_machine_named(options.machine_type) == nullptr) return;
    const auto near = job::closest_name(options.gpu_type, types);
    SHARDRUN_THROW(UsageError, fmt::format("submit: --gpu-type {} is no GPU type of the machine table{}; the types: {} "
                                           "(a type newer than these: name its VM with --machine-type too; see "
                                           "docs/launchers/sizes-spot.md)",
                                           options.gpu_type, near.empty() ? "" : fmt::format(" (did you mean {}?)", near),
                                           fmt::join(types, ", ")));
}

void resolve_cloud_sizes(SubmitOptions& options, const GcpMachine* limit)
{
    const long gpus = gpus_per_node(options);
    const long ranks = options.ranks_per_node;
    if (!options.memory.empty()) options.memory_mib = parse_size_mib(options.memory, "--memory");
    if (!options.shm_size.empty()) options.shm_mib = parse_size_mib(options.shm_size, "--shm-size");
    if (options.vcpus < 0) SHARDRUN_THROW(UsageError, fmt::format("submit: --vcpus {} must be at least 1", options.vcpus));
    if (limit != nullptr) {
        const auto machine = fmt::format("{} ({} vCPU, {} GB)", limit->name, limit->vcpus, limit->memory_gib);
        if (options.vcpus > limit->vcpus) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --vcpus {} is more than {} has; ask for at most {} or name a "
                                                   "larger --machine-type", options.vcpus, machine, limit->vcpus));
        }
        if (options.memory_mib > machine_memory_mib(*limit)) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --memory {} is more than {} leaves beside the Batch agent; "
                                                   "ask for at most {}M or name a larger --machine-type",
                                                   options.memory, machine, machine_memory_mib(*limit)));
        }
    }
    if (options.vcpus == 0) options.vcpus = gpus > 0 ? std::max(ranks, vcpus_per_gpu * gpus) : ranks;
    if (options.memory_mib == 0) {
        options.memory_mib = gpus > 0 ? std::max(ranks * memory_mib_per_rank, memory_mib_per_gpu * gpus)
                                      : ranks * memory_mib_per_rank;
    }
    if (limit != nullptr) {
        options.vcpus = std::min(options.vcpus, limit->vcpus);
        options.memory_mib = std::min(options.memory_mib, machine_memory_mib(*limit));
    }
    if (options.shm_mib == 0) options.shm_mib = std::min(options.memory_mib / 2, gpus > 0 ? shm_mib_per_gpu * gpus : shm_mib_cpu);
    if (options.shm_mib > options.memory_mib) {
        // /dev/shm is a tmpfs whose pages count against the container's memory limit.
        SHARDRUN_THROW(UsageError, fmt::format("submit: --shm-size {} is more than the container's memory ({} MiB), which "
                                               "its pages count against; ask for less, or more --memory",
                                               options.shm_size, options.memory_mib));
    }
}

void resolve_gcp_machine(SubmitOptions& options)
{
    const long gpus = gpus_per_node(options);
    const GcpMachine* machine = nullptr;
    if (!options.machine_type.empty()) {
        machine = gcp_machine_named(options.machine_type);
        if (machine != nullptr && machine->bundled && gpus > 0 && machine->gpus != gpus) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --machine-type {} carries {} {} GPU(s), but --ranks-per-node "
                                                   "{} x --gpus-per-rank {} asks for {}; make them match",
                                                   options.machine_type, machine->gpus, machine->gpu_type,
                                                   options.ranks_per_node, options.gpus_per_rank, gpus));
        }
        if (machine != nullptr && machine->bundled) options.gpu_type = std::string(machine->gpu_type);
    } else if (gpus > 0) {
        machine = gcp_machine_for(options.gpu_type, gpus);
        std::string counts;
        for (const auto& row : machine_table) {
            if (row.gpu_type == options.gpu_type) counts += (counts.empty() ? "" : ", ") + std::to_string(row.gpus);
        }
        if (machine != nullptr) {
            options.machine_type = std::string(machine->name);
        } else if (!counts.empty()) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: {} GPUs of {} per VM is no machine type (there are {}); "
                                                   "change --ranks-per-node x --gpus-per-rank, or name one with "
                                                   "--machine-type", gpus, options.gpu_type, counts));
        }
        // A type not in the table: Batch picks a VM that takes the accelerators.
    }
    resolve_cloud_sizes(options, machine);
}

void reject_slurm_options(const SubmitOptions& options, std::string_view target)
{
    // Each with what plays its part there: sizes, the queue, retries.
    const auto what = [target](std::string_view there) {
        return fmt::format(" is a Slurm option; it has no meaning for --to {} ({})", target, there);
    };
    const auto sizes = what("sizes there: --vcpus, --memory, --shm-size");
    const auto queue = what("the queue and the machines there are the compute environment's; --spot picks Spot");
    refuse_option(options.partition.empty() ? "" : "--partition", queue);
    refuse_option(options.account.empty() ? "" : "--account", queue);
    refuse_option(options.qos.empty() ? "" : "--qos", queue);
    refuse_option(options.mem.empty() ? "" : "--mem", sizes);
    refuse_option(options.cpus_per_task == 0 ? "" : "--cpus-per-task", sizes);
    refuse_option(options.sbatch_lines.empty() ? "" : "--sbatch", what("the job files there are JSON; edit them after --dry-run"));
    refuse_option(options.merge_partition.empty() ? "" : "--merge-partition", queue);
    refuse_option(options.merge_time.empty() ? "" : "--merge-time", what("the merge runs as the last element or its own job there"));
    refuse_option(options.given.count("max-requeues") ? "--max-requeues" : "",
                  what("retries there: the job files' retry strategy, which retries exit 3 (--set retries=N is per task)"));
}

void reject_cloud_options(const SubmitOptions& options)
{
    const std::string what = " is a cloud option; it has no meaning for --to slurm (there: --cpus-per-task, --mem, "
                             "--sbatch '--constraint=...')";
    refuse_option(options.vcpus == 0 ? "" : "--vcpus", what);
    refuse_option(options.memory.empty() ? "" : "--memory", what);
    refuse_option(options.shm_size.empty() ? "" : "--shm-size", what);
    refuse_option(options.spot ? "--spot" : "", what);
    refuse_option(options.machine_type.empty() ? "" : "--machine-type", what);
    refuse_option(options.given.count("gpu-type") ? "--gpu-type" : "", what);
    refuse_option(options.given.count("image") ? "--image" : "", what);
    refuse_option(options.shared_fs.empty() ? "" : "--shared-fs", " is a cloud option; it has no meaning for --to slurm "
                                                                  "(its jobs run on the cluster's own file system)");
}

}  // namespace shardrun::submit
