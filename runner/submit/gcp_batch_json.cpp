#include "runner/submit/gcp_batch_json.hpp"

#include <cctype>

#include "runner/submit/cloud_container.hpp"

using nlohmann::json;

namespace shardrun::submit {
namespace {

json task_spec(const SubmitOptions& options, const SubmitFiles& files)
{
    auto command = container_command(files);  // bash <entrypoint> <job> ...
    const std::string entrypoint = command.front();
    command.erase(command.begin());
    json variables = json::object();
    for (const auto& [name, value] : container_environment(options, files, false)) variables[name] = value;
    for (const auto& [name, value] : merge_environment(options, "last-task", gcp_max_retry_count + 1)) variables[name] = value;
    json spec = {
        {"runnables", json::array({{{"container", {{"imageUri", options.image}, {"entrypoint", entrypoint},
                                                   {"commands", command}}}}})},
        {"environment", {{"variables", variables}}},
        {"computeResource", {{"cpuMilli", options.ranks_per_node * 1000},
                             {"memoryMib", options.ranks_per_node * memory_mib_per_rank}}},
        // Bad input (exit 2) is final; other failures retry, and the entrypoint resumes.
        {"maxRetryCount", gcp_max_retry_count},
        {"lifecyclePolicies", json::array({{{"action", "FAIL_TASK"}, {"actionCondition", {{"exitCodes", json::array({2})}}}}})},
    };
    if (options.time_seconds > 0) spec["maxRunDuration"] = std::to_string(options.time_seconds) + "s";
    return spec;
}

}  // namespace

std::string gcp_job_name(const SubmitFiles& files)
{
    std::string name;
    for (const char c : files.job_name) {
        const auto lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        name += std::isalnum(static_cast<unsigned char>(lower)) ? lower : '-';
    }
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name.front()))) name = "shardrun-" + name;
    name = name.substr(0, 63);
    while (name.back() == '-') name.pop_back();
    return name;
}

json gcp_batch_job(const SubmitOptions& options, const SubmitFiles& files)
{
    json job = {
        {"taskGroups", json::array({{{"taskCount", options.array},
                                     {"parallelism", options.array},
                                     {"taskSpec", task_spec(options, files)}}})},
        {"logsPolicy", {{"destination", "CLOUD_LOGGING"}}},
        {"labels", {{"shardrun-job", gcp_job_name(files)}}},
    };
    if (options.gpus_per_rank > 0) {
        const json accelerator = {{"type", options.gpu_type}, {"count", options.ranks_per_node * options.gpus_per_rank}};
        job["allocationPolicy"] = {
            {"instances", json::array({{{"installGpuDrivers", true},
                                        {"policy", {{"accelerators", json::array({accelerator})}}}}})}};
    }
    return job;
}

}  // namespace shardrun::submit
