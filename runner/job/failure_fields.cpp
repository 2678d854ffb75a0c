// max_failures and fail_fast: how many failed tasks a run accepts before it stops taking more.
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"

namespace shardrun::job {

void read_failure_fields(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    auto& spec = job.spec;
    if (const auto node = root["max_failures"]) {
        spec.max_failures = read_integer(node, context, "max_failures", 1);
    }
    if (const auto node = root["fail_fast"]) {
        bool on = false;
        if (node.IsScalar() && YAML::convert<bool>::decode(node, on)) {
            spec.fail_fast = on ? default_fail_fast : 0;
            return;
        }
        std::int64_t tasks = 0;
        if (!node.IsScalar() || !YAML::convert<std::int64_t>::decode(node, tasks) || tasks < 1) {
            context.fail(node, "fail_fast", "must be true, false or a number of tasks (at least 1): stop when the first "
                                            "that many tasks all failed with one exit code");
        }
        spec.fail_fast = tasks;
    }
}

}  // namespace shardrun::job
