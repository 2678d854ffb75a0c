#include "runner/submit/aws_batch_json.hpp"

#include "runner/submit/cloud_container.hpp"
#include "runner/submit/cloud_job_settings.hpp"

using nlohmann::json;

namespace shardrun::submit {
namespace {

json container(const SubmitOptions& options, const SubmitFiles& files, bool multinode)
{
    auto environment = json::array();
    for (const auto& [name, value] : container_environment(options, files, multinode)) {
        environment.push_back({{"name", name}, {"value", value}});
    }
    return {
        {"image", options.image},
        {"command", container_command(files)},
        {"environment", environment},
        {"resourceRequirements", aws_resource_requirements(options)},
        {"linuxParameters", aws_linux_parameters(options)},
    };
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

json aws_multinode_submit(const SubmitOptions& options, const SubmitFiles& files)
{
    return {{"jobName", safe_name(files.job_name + "-multinode", 128)},
            {"jobQueue", aws_job_queue(options)},
            {"jobDefinition", aws_definition_name(files, true)}};
}

}  // namespace shardrun::submit
