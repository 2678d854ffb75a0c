#include "runner/submit/gcp_batch_json.hpp"

#include <cctype>

#include "runner/submit/cloud_container.hpp"
#include "runner/submit/cloud_job_settings.hpp"
#include "runner/submit/submit_resources.hpp"

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
                                                   {"commands", command},
                                                   {"options", gcp_container_options(options)}}}}})},
        {"environment", {{"variables", variables}}},
        {"computeResource", gcp_compute_resource(options)},
        {"maxRetryCount", gcp_max_retry_count},
        {"lifecyclePolicies", gcp_lifecycle_policies()},
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
    if (const auto policy = gcp_allocation_policy(options); !policy.is_null()) job["allocationPolicy"] = policy;
    // --service-account: the identity of the VMs (and so of the containers' Cloud Storage calls);
    // without it Batch uses the project's Compute Engine default service account.
    if (!options.service_account.empty()) job["allocationPolicy"]["serviceAccount"] = {{"email", options.service_account}};
    // Each task is an element that takes all of its VM's GPUs: never two on one VM.
    if (gpus_per_node(options) > 0) job["taskGroups"][0]["taskCountPerNode"] = 1;
    return job;
}

}  // namespace shardrun::submit
