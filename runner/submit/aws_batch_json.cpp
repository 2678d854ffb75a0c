#include "runner/submit/aws_batch_json.hpp"

#include "runner/submit/cloud_container.hpp"
#include "runner/submit/cloud_job_settings.hpp"

using nlohmann::json;

namespace shardrun::submit {
namespace {

// --job-role: the IAM role whose credentials the container's AWS SDKs (and rclone) get from the
// task metadata endpoint; without it they have only the instance's role.
void add_job_role(const SubmitOptions& options, json& container)
{
    if (!options.job_role.empty()) container["jobRoleArn"] = options.job_role;
}

json container(const SubmitOptions& options, const SubmitFiles& files, bool multinode)
{
    auto environment = json::array();
    for (const auto& [name, value] : container_environment(options, files, multinode)) {
        environment.push_back({{"name", name}, {"value", value}});
    }
    if (!multinode) {
        for (const auto& [name, value] : merge_environment(options, "after-array", aws_attempts)) {
            environment.push_back({{"name", name}, {"value", value}});
        }
    }
    json body = {
        {"image", options.image},
        {"command", container_command(files)},
        {"environment", environment},
        {"resourceRequirements", aws_resource_requirements(options)},
        {"linuxParameters", aws_linux_parameters(options)},
    };
    add_job_role(options, body);
    return body;
}

json definition(const SubmitOptions& options, const SubmitFiles& files, bool multinode)
{
    json body = {{"jobDefinitionName", aws_definition_name(files, multinode)},
                 {"type", multinode ? "multinode" : "container"},
                 {"platformCapabilities", json::array({"EC2"})},
                 {"retryStrategy", aws_retry_strategy()},
                 {"tags", {{"shardrun-job", safe_name(files.job_name, 256)}}}};
    if (options.time_seconds > 0) body["timeout"] = {{"attemptDurationSeconds", options.time_seconds}};
    return body;
}

}  // namespace

std::string aws_definition_name(const SubmitFiles& files, bool multinode)
{
    return safe_name("shardrun-" + files.job_name, multinode ? 118 : 128) + (multinode ? "-multinode" : "");
}

json aws_array_job_definition(const SubmitOptions& options, const SubmitFiles& files)
{
    auto body = definition(options, files, false);
    body["containerProperties"] = container(options, files, false);
    return body;
}

json aws_array_submit(const SubmitOptions& options, const SubmitFiles& files)
{
    json body = {{"jobName", safe_name(files.job_name, 128)},
                 {"jobQueue", aws_job_queue(options)},
                 {"jobDefinition", aws_definition_name(files, false)}};
    if (options.array > 1) body["arrayProperties"] = {{"size", options.array}};
    return body;
}

json aws_multinode_job_definition(const SubmitOptions& options, const SubmitFiles& files)
{
    auto body = definition(options, files, true);
    body["nodeProperties"] = {
        {"numNodes", options.nodes},
        {"mainNode", 0},
        {"nodeRangeProperties", json::array({{{"targetNodes", "0:"}, {"container", container(options, files, true)}}})},
    };
    return body;
}

json aws_merge_job_definition(const SubmitOptions& options, const SubmitFiles& files)
{
    auto environment = json::array({{{"name", "SHARDRUN_OUTPUT"}, {"value", files.output.string()}},
                                    {{"name", "SHARDRUN_BIN"}, {"value", files.shardrun}},
                                    {{"name", "SHARDRUN_ARRAY_COUNT"}, {"value", std::to_string(options.array)}}});
    // One process reads every element's shards and writes the master: one vCPU, memory for HDF5's buffers.
    auto resources = json::array({{{"type", "VCPU"}, {"value", "1"}}, {{"type", "MEMORY"}, {"value", "4096"}}});
    json merge = {{"jobDefinitionName", aws_merge_definition_name(files)},
                  {"type", "container"},
                  {"platformCapabilities", json::array({"EC2"})},
                  // A host or spot loss is retried; the merge's own exit (1: elements missing) is final.
                  {"retryStrategy", {{"attempts", aws_attempts},
                                     {"evaluateOnExit", json::array({{{"onStatusReason", "Host EC2*"}, {"action", "RETRY"}},
                                                                     {{"onReason", "*"}, {"action", "EXIT"}}})}}},
                  {"tags", {{"shardrun-job", safe_name(files.job_name, 256)}}},
                  {"containerProperties", {{"image", options.image},
                                           {"command", merge_command(files)},
                                           {"environment", environment},
                                           {"resourceRequirements", resources}}}};
    add_job_role(options, merge["containerProperties"]);  // the merge reads and writes the bucket too
    return merge;
}

json aws_merge_submit(const SubmitOptions& options, const SubmitFiles& files)
{
    return {{"jobName", safe_name(files.job_name + "-merge", 128)},
            {"jobQueue", aws_job_queue(options)},
            {"jobDefinition", aws_merge_definition_name(files)}};
}

std::string aws_merge_definition_name(const SubmitFiles& files) { return safe_name("shardrun-" + files.job_name, 122) + "-merge"; }

json aws_multinode_submit(const SubmitOptions& options, const SubmitFiles& files)
{
    return {{"jobName", safe_name(files.job_name + "-multinode", 128)},
            {"jobQueue", aws_job_queue(options)},
            {"jobDefinition", aws_definition_name(files, true)}};
}

}  // namespace shardrun::submit
