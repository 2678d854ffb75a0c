// `shardrun submit --to gcp-batch`: one Google Cloud Batch job file for gcloud.
#include <fmt/format.h>

#include <ostream>
#include <string>

#include "runner/errors.hpp"
#include "runner/submit/cloud_container.hpp"
#include "runner/submit/container_paths.hpp"
#include "runner/submit/cloud_identity.hpp"
#include "runner/submit/cloud_job_settings.hpp"
#include "runner/submit/gcp_batch_json.hpp"
#include "runner/submit/submission_upload.hpp"
#include "runner/submit/submit_resources.hpp"
#include "runner/submit/submit_targets.hpp"
#include "runner/submit/target_support.hpp"

namespace shardrun::submit {
namespace {

void validate_gcp_batch(SubmitOptions& options)
{
    // A job has one task group (jobs.create), so an element cannot be a group of VMs: no multi-node
    // elements, and so no arrays of them either.
    if (options.nodes > 1) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --nodes {}: --to gcp-batch runs each array element on one VM; "
                                               "--nodes must be 1 (use more --ranks-per-node on a larger --machine-type, "
                                               "or --to slurm for an array of multi-node elements)", options.nodes));
    }
    reject_slurm_options(options, "gcp-batch");
    if (options.given.count("gpu-type") && gpus_per_node(options) == 0) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --gpu-type {} without --gpus-per-rank: the VM would get no GPU "
                                               "(a CPU VM); add --gpus-per-rank N, or leave --gpu-type out",
                                               options.gpu_type));
    }
    refuse_unknown_gpu_type(options);
    const auto* machine = gcp_machine_named(options.machine_type);
    if (options.given.count("gpu-type") && machine != nullptr && machine->bundled && machine->gpu_type != options.gpu_type) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --machine-type {} comes with {} GPUs, not --gpu-type {}; "
                                               "leave one of them out", options.machine_type, machine->gpu_type,
                                               options.gpu_type));
    }
    resolve_gcp_machine(options);
}

// A task is one VM.
long gcp_batch_ranks(const SubmitOptions& options) { return options.ranks_per_node; }

int submit_gcp_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    write_entrypoint(files);
    const auto job = write_json(files, "job.json", gcp_batch_job(options, files));
    out << fmt::format("shardrun: wrote the Google Cloud Batch job of {} to {} (nothing submitted from here)\n",
                       files.job_name, job);
    upload_submission(options, files, out);
    out << fmt::format("  {} task(s) of {} rank(s){}; submit it with:\n", options.array, options.ranks_per_node,
                       options.array > 1 ? ", the last to finish merges" : "");
    out << fmt::format("    gcloud batch jobs submit {} --location REGION --config {}\n", gcp_job_name(files), job);
    out << cloud_storage_note(options, files);
    out << fmt::format("  each task: one {}VM{}, {} vCPU, {} MiB, /dev/shm {} MiB{}; retried only after a lost VM or exit 3\n",
                       options.spot ? "Spot " : "",
                       options.machine_type.empty() ? std::string() : " " + options.machine_type, options.vcpus,
                       options.memory_mib, options.shm_mib,
                       gpus_per_node(options) > 0 ? fmt::format(", {} x {}", gpus_per_node(options), options.gpu_type)
                                                  : std::string());
    out << element_note(options, files);
    return 0;
}

void add_gcp_options(boost::program_options::options_description& options, SubmitOptions& o)
{
    namespace po = boost::program_options;
    options.add_options()
        ("gpu-type", po::value<std::string>(&o.gpu_type)->default_value(std::string(default_gpu_type)),
         "gcp-batch: accelerator type of the --gpus-per-rank GPUs, one of the machine table's "
         "(docs/launchers/sizes-spot.md)")
        ("machine-type", po::value<std::string>(&o.machine_type),
         "gcp-batch: machine type (default: from --gpu-type and the GPUs per VM, e.g. g2-standard-8 for one nvidia-l4)");
}

const OptionGroup gcp_options{"Google Cloud Batch (--to gcp-batch)", add_gcp_options};
const OptionGroup* const gcp_option_groups[] = {&cloud_options, &cloud_identity_options, &gcp_options};

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; submit_targets.cpp lists it.
extern const TargetEntry gcp_batch_target{"gcp-batch", "Google Cloud Batch", gcp_batch_ranks, false, validate_gcp_batch,
                                          submit_gcp_batch, gcp_option_groups, check_container_paths};

}  // namespace shardrun::submit
