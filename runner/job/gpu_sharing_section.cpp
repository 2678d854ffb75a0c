// tasks_per_gpu, gpu_sharing, gpu_threads and gpu_memory: several tasks on one GPU (issue 26).
#include <fmt/format.h>

#include <algorithm>

#include "runner/job/byte_size.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {

void read_gpu_sharing(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& sharing = job.spec.gpu_sharing;
    for (const char* key : gpu_sharing_keys) {
        if (!root[key]) continue;
        sharing.given = true;
        job.marks.values[key] = root[key].Mark();  // the conflicts across sections are reported at the first (job_checks.hpp)
    }
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
}

}  // namespace shardrun::job
