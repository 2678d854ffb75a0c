#include "runner/submit/cloud_job_settings.hpp"

#include <fmt/format.h>

#include "runner/submit/aws_batch_json.hpp"
#include "runner/submit/gcp_batch_json.hpp"
#include "runner/submit/submit_resources.hpp"

using nlohmann::json;

namespace shardrun::submit {

json aws_resource_requirements(const SubmitOptions& options)
{
    auto resources = json::array({
        {{"type", "VCPU"}, {"value", std::to_string(options.vcpus)}},
        {{"type", "MEMORY"}, {"value", std::to_string(options.memory_mib)}},
    });
    if (gpus_per_node(options) > 0) resources.push_back({{"type", "GPU"}, {"value", std::to_string(gpus_per_node(options))}});
    return resources;
}

json aws_linux_parameters(const SubmitOptions& options) { return {{"sharedMemorySize", options.shm_mib}}; }

json aws_retry_strategy()
{
    // The first entry that matches decides; one that matches nothing would retry (AWS's default),
    // hence the closing EXIT on any reason. A timeout (--time) is never retried by AWS.
    return {{"attempts", aws_attempts},
            {"evaluateOnExit", json::array({
                                   {{"onStatusReason", "Host EC2*"}, {"action", "RETRY"}},
                                   {{"onExitCode", std::to_string(exit_drained)}, {"action", "RETRY"}},
                                   {{"onReason", "*"}, {"action", "EXIT"}},
                               })}};
}

std::string aws_job_queue(const SubmitOptions& options) { return options.spot ? "shardrun-spot" : aws_default_queue; }

json gcp_compute_resource(const SubmitOptions& options)
{
    return {{"cpuMilli", options.vcpus * 1000}, {"memoryMib", options.memory_mib}};
}

json gcp_lifecycle_policies()
{
    // cloud.google.com/batch/docs/troubleshooting#reserved-exit-codes
    const auto lost_vm = json::array({exit_drained, 50001, 50002, 50003, 50006});
    return json::array({{{"action", "RETRY_TASK"}, {"actionCondition", {{"exitCodes", lost_vm}}}}});
}

std::string gcp_container_options(const SubmitOptions& options) { return fmt::format("--shm-size={}m", options.shm_mib); }

json gcp_allocation_policy(const SubmitOptions& options)
{
    const long gpus = gpus_per_node(options);
    json policy = json::object();
    if (!options.machine_type.empty()) policy["machineType"] = options.machine_type;
    if (options.spot) policy["provisioningModel"] = "SPOT";
    const auto* machine = gcp_machine_named(options.machine_type);
    if (gpus > 0 && (machine == nullptr || !machine->bundled)) {
        policy["accelerators"] = json::array({{{"type", options.gpu_type}, {"count", gpus}}});
    }
    if (policy.empty() && gpus == 0) return nullptr;
    json instance = {{"policy", policy}};
    if (gpus > 0) instance["installGpuDrivers"] = true;
    return {{"instances", json::array({instance})}};
}

namespace {

void add_cloud_options(boost::program_options::options_description& options, SubmitOptions& o)
{
    namespace po = boost::program_options;
    options.add_options()
        ("image", po::value<std::string>(&o.image)->default_value(std::string(default_image)),
         "container image of the cloud jobs (the project's Dockerfile builds shardrun:latest)")
        ("vcpus", po::value<long>(&o.vcpus), "clouds: vCPUs per container / VM (default: 8 per GPU, else 1 per rank)")
        ("memory", po::value<std::string>(&o.memory),
         "clouds: memory per container / VM, e.g. 30G or 30720M (default: 30G per GPU, else 2G per rank)")
        ("shm-size", po::value<std::string>(&o.shm_size),
         "clouds: /dev/shm size, e.g. 8G (default: 8G per GPU, else 1G; at most half the memory)")
        ("spot", po::bool_switch(&o.spot),
         "clouds: Spot VMs (gcp-batch: provisioningModel SPOT; aws-batch: queue shardrun-spot, a SPOT compute environment)")
        ("shared-fs", po::value<std::string>(&o.shared_fs),
         "clouds: a folder of this machine the containers mount at the same path (EFS, Filestore, NFS); needed for "
         "an output.path that is not in a bucket, which must then lie under it, with the job and the workdir");
}

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; the cloud targets list it.
extern const OptionGroup cloud_options{"AWS Batch and Google Cloud Batch (--to aws-batch, --to gcp-batch)", add_cloud_options};

}  // namespace shardrun::submit
