// `shardrun submit --to aws-batch`: an array job and a multi-node parallel job, as files for the aws CLI.
#include <fmt/format.h>

#include <ostream>

#include "runner/errors.hpp"
#include "runner/submit/aws_batch_json.hpp"
#include "runner/submit/aws_submit_script.hpp"
#include "runner/submit/cloud_identity.hpp"
#include "runner/submit/cloud_container.hpp"
#include "runner/submit/container_paths.hpp"
#include "runner/submit/submission_upload.hpp"
#include "runner/submit/cloud_job_settings.hpp"
#include "runner/submit/submit_resources.hpp"
#include "runner/submit/submit_targets.hpp"
#include "runner/submit/target_support.hpp"

namespace shardrun::submit {
namespace {

void validate_aws_batch(SubmitOptions& options)
{
    if (options.array > 10000) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --array {} is more than AWS Batch allows (10000)", options.array));
    }
    if (options.array > 1 && options.nodes > 1) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --array {} --nodes {}: AWS Batch has no multi-node array jobs; use "
                                               "--array {} alone (one node per element: more --ranks-per-node), or "
                                               "--nodes {} alone (one multi-node job), or --to slurm",
                                               options.array, options.nodes, options.array, options.nodes));
    }
    reject_slurm_options(options, "aws-batch");
    if (!options.machine_type.empty()) {
        SHARDRUN_THROW(UsageError, "submit: --machine-type is a Google Cloud option; on AWS Batch the compute "
                                   "environment's instanceTypes choose the machine (--vcpus, --memory and the GPUs "
                                   "decide which of them fits)");
    }
    if (options.given.count("gpu-type")) {
        SHARDRUN_THROW(UsageError, "submit: --gpu-type is a Google Cloud option; on AWS Batch the compute environment's "
                                   "instanceTypes choose the GPU (e.g. g5 instances for A10G): give --gpus-per-rank and "
                                   "leave --gpu-type out");
    }
    resolve_cloud_sizes(options);
    if (options.time_seconds > 0 && options.time_seconds < 60) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --time {} is shorter than AWS Batch's minimum timeout (60 s)", options.time));
    }
}

// An array element is one container; the multi-node job's nodes each run ranks_per_node ranks.
long aws_batch_ranks(const SubmitOptions& options) { return options.ranks_per_node; }

int submit_aws_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    write_entrypoint(files);
    const auto definition = write_json(files, "array-job.json", aws_array_job_definition(options, files));
    const auto submit = write_json(files, "array-submit.json", aws_array_submit(options, files));
    const auto mnp_definition = write_json(files, "multinode-job.json", aws_multinode_job_definition(options, files));
    const auto mnp_submit = write_json(files, "multinode-submit.json", aws_multinode_submit(options, files));
    if (options.array > 1) {
        write_json(files, "merge-job.json", aws_merge_job_definition(options, files));
        write_json(files, "merge-submit.json", aws_merge_submit(options, files));
        write_text_file(files.dir / "submit.sh", aws_submit_script(options, files), true);
    }
    out << fmt::format("shardrun: wrote the AWS Batch job files of {} to {}/ (nothing submitted from here)\n",
                       files.job_name, files.dir.string());
    upload_submission(options, files, out);
    if (options.array > 1) {
        out << fmt::format("  array job of {} element(s) of {} rank(s), then a merge job that dependsOn it; submit both with:\n",
                           options.array, options.ranks_per_node);
        out << fmt::format("    bash {} [JOB_QUEUE]\n  which runs:\n", shell_quote((files.dir / "submit.sh").string()));
    } else {
        out << fmt::format("  one job of {} rank(s):\n", options.ranks_per_node);
    }
    out << fmt::format("    aws batch register-job-definition --cli-input-json file://{}\n", definition);
    out << fmt::format("    aws batch submit-job --cli-input-json file://{} --job-queue {}\n", submit, aws_job_queue(options));
    if (options.array > 1) {
        out << "    (then the same for merge-job.json and merge-submit.json, with --depends-on jobId=<the array job's id>)\n";
    }
    out << fmt::format("  or the whole job as one multi-node parallel job on {} node(s):\n", options.nodes);
    out << fmt::format("    aws batch register-job-definition --cli-input-json file://{}\n", mnp_definition);
    out << fmt::format("    aws batch submit-job --cli-input-json file://{} --job-queue {}\n", mnp_submit, aws_job_queue(options));
    out << cloud_storage_note(options, files);
    out << fmt::format("  each container: {} vCPU, {} MiB, /dev/shm {} MiB{}; retried only after a lost host or exit 3\n",
                       options.vcpus, options.memory_mib, options.shm_mib,
                       gpus_per_node(options) > 0 ? fmt::format(", {} GPU(s)", gpus_per_node(options)) : std::string());
    if (options.spot) {
        out << "  --spot: queue shardrun-spot must lead to a compute environment of type SPOT (AWS chooses Spot there, "
               "not in the job)\n";
    }
    out << element_note(options, files);
    return 0;
}

const OptionGroup* const aws_option_groups[] = {&cloud_options, &cloud_identity_options};

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; submit_targets.cpp lists it.
extern const TargetEntry aws_batch_target{"aws-batch", "AWS Batch", aws_batch_ranks, false, validate_aws_batch,
                                          submit_aws_batch, aws_option_groups, check_container_paths};

}  // namespace shardrun::submit
