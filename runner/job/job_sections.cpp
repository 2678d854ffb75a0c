#include "runner/job/job_sections.hpp"

#include "runner/job/job_fields.hpp"

namespace shardrun::job {

const std::vector<std::string> top_level_keys = job_field_names("");

JobRead read_sections(const YAML::Node& root, const YamlContext& context, const std::vector<std::string>& known_tasks,
                      const std::string& job_dir)
{
    JobRead job;
    job.spec.file = context.file();
    read_identity(root, context, known_tasks, job);
    read_params(root, context, job);
    read_sweep(root, context, job_dir, job);
    read_data(root, context, job);
    read_execution(root, context, job);
    read_failure_fields(root, context, job);
    read_output(root, context, job);
    read_notify(root, context, job);
    read_exec(root, context, job);
    read_gpu_fields(root, context, job);
    read_cost_fields(root, context, job);
    read_gpu_sharing(root, context, job);
    return job;
}

}  // namespace shardrun::job
