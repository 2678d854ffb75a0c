#include "runner/job/gpu_sharing_section.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/job/byte_size.hpp"
#include "runner/job/job_sections.hpp"

namespace shardrun::job {
namespace {

// The key a conflict is reported at: the one that asks for sharing.
YAML::Node sharing_key(const YAML::Node& root)
{
    for (const char* key : gpu_sharing_keys) {
        if (root[key]) return root[key];
    }
    return root;
}

void check_against_execution(const YAML::Node& root, const YamlContext& context, const JobSpec& spec)
{
    const auto& sharing = spec.gpu_sharing;
    const auto at = sharing_key(root);
    if (spec.device == DevicePreference::cpu) {
        context.fail(at, "tasks_per_gpu", "shares a GPU, but device: cpu keeps every rank on the CPU; use device: auto "
                                          "or cuda, or leave the gpu sharing keys out");
    }
    if (spec.gpus_per_task > 1) {
        // A group runs one task at a time over all its members: there is nothing to pack.
        context.fail(at, "tasks_per_gpu", "cannot be combined with gpus_per_task above 1 (a rank group runs one task "
                                          "at a time); use one or the other");
    }
    if (spec.gpus_per_rank > 1) {
        context.fail(at, "tasks_per_gpu", "cannot be combined with gpus_per_rank above 1 (packing shares one GPU); "
                                          "use one or the other");
    }
    if (root["slots_per_rank"] && spec.slots_per_rank != sharing.tasks_per_gpu) {
        context.fail(root["slots_per_rank"], "slots_per_rank",
                     fmt::format("is {} but tasks_per_gpu is {} (tasks_per_gpu sets the slots); leave slots_per_rank out",
                                 spec.slots_per_rank, sharing.tasks_per_gpu));
    }
    if (sharing.mps() && sharing.tasks_per_gpu > 1 && spec.exec.mode == ExecSpec::Mode::worker) {
        // One worker process per rank is one MPS client: its K tasks would share one limit, not get one each.
        context.fail(root["exec"]["mode"], "exec.mode",
                     "worker runs one process per rank, so MPS would limit the worker, not each of its tasks_per_gpu "
                     "tasks; use exec.mode: task, gpu_sharing: time, or tasks_per_gpu: 1");
    }
}

}  // namespace

void parse_gpu_sharing(const YAML::Node& root, const YamlContext& context, JobSpec& spec)
{
    auto& sharing = spec.gpu_sharing;
    for (const char* key : gpu_sharing_keys) sharing.given = sharing.given || static_cast<bool>(root[key]);
    if (!sharing.given) return;
    if (root["tasks_per_gpu"]) sharing.tasks_per_gpu = read_int(root["tasks_per_gpu"], context, "tasks_per_gpu", 1);
    if (root["gpu_sharing"]) {
        const auto node = root["gpu_sharing"];
        if (!node.IsScalar() || (node.Scalar() != "time" && node.Scalar() != "mps")) {
            context.fail(node, "gpu_sharing", fmt::format("'{}' is not allowed; allowed: time, mps",
                                                          node.IsScalar() ? node.Scalar() : "a list or mapping"));
        }
        sharing.mode = node.Scalar() == "mps" ? GpuSharingMode::mps : GpuSharingMode::time;
    }
    sharing.thread_percent = std::max(1, 100 / sharing.tasks_per_gpu);
    if (root["gpu_threads"]) {
        if (!sharing.mps()) {
            context.fail(root["gpu_threads"], "gpu_threads", "applies only with gpu_sharing: mps (time slicing has no "
                                                             "thread share)");
        }
        sharing.thread_percent = read_int(root["gpu_threads"], context, "gpu_threads", 1);
        if (sharing.thread_percent > 100) {
            context.fail(root["gpu_threads"], "gpu_threads",
                         fmt::format("{} is above 100; it is a percentage of the GPU's SMs, 1..100", sharing.thread_percent));
        }
    }
    if (root["gpu_memory"]) {
        const auto node = root["gpu_memory"];
        if (!sharing.mps()) {
            // Nothing enforces a limit under time slicing, and NVML cannot tell the tasks of one
            // rank (or, in a container, of one device) apart to check it: refused, not ignored.
            context.fail(node, "gpu_memory", "applies only with gpu_sharing: mps (time slicing cannot limit a task's "
                                             "memory; /tasks/gpu_mem_peak shows what tasks used)");
        }
        const auto bytes = node.IsScalar() ? parse_byte_size(node.Scalar()) : std::nullopt;
        if (!bytes) {
            context.fail(node, "gpu_memory", fmt::format("'{}' is not a size; give bytes per task with a K, M, G or T "
                                                         "suffix, e.g. 10G",
                                                         node.IsScalar() ? node.Scalar() : "a list or mapping"));
        }
        sharing.memory_bytes = *bytes;
    }
    check_against_execution(root, context, spec);
    spec.slots_per_rank = sharing.tasks_per_gpu;
}

}  // namespace shardrun::job
