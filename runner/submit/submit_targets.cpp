#include "runner/submit/submit_targets.hpp"

#include <fmt/format.h>

#include <ostream>

#include "runner/errors.hpp"
#include "runner/submit/aws_batch_json.hpp"
#include "runner/submit/cloud_container.hpp"
#include "runner/submit/gcp_batch_json.hpp"
#include "runner/submit/sbatch.hpp"
#include "runner/submit/slurm_scripts.hpp"

namespace shardrun::submit {
namespace {

std::string write_json(const SubmitFiles& files, const std::string& name, const nlohmann::json& body)
{
    const auto path = (files.dir / name).string();
    write_text_file(path, body.dump(2) + "\n");
    return path;
}

std::string element_note(const SubmitOptions& options, const SubmitFiles& files)
{
    if (options.array == 1) return fmt::format("  results: {}\n", files.output.string());
    return fmt::format("  each element writes {}.shards/a<index>/; results: {} once `shardrun merge {}` has run\n",
                       files.output.string(), files.output.string(), shell_quote(files.output.string()));
}

}  // namespace

int submit_slurm(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    const auto run_script = files.dir / "run.sbatch";
    const auto merge_script = files.dir / "merge.sbatch";
    write_text_file(run_script, slurm_run_script(options, files), true);
    write_text_file(merge_script, slurm_merge_script(options, files), true);
    const auto elements = options.array > 1 ? fmt::format(" (elements 0-{})", options.array - 1) : std::string();
    if (options.dry_run) {
        out << "# " << run_script.string() << "\n" << slurm_run_script(options, files) << "\n";
        out << "# " << merge_script.string() << "\n" << slurm_merge_script(options, files) << "\n";
        out << "# dry run: nothing submitted; these two commands would submit it:\n";
        out << "sbatch --parsable " << shell_quote(run_script.string()) << "\n";
        out << "sbatch --parsable --dependency=afterany:<array job id> " << shell_quote(merge_script.string()) << "\n";
        return 0;
    }
    const auto array_job = sbatch({"--parsable", run_script.string()});
    std::string merge_job;
    try {
        merge_job = sbatch({"--parsable", "--dependency=afterany:" + array_job, merge_script.string()});
    } catch (const Error& error) {
        SHARDRUN_THROW(Error, fmt::format("job {} is queued, but its merge job was not: {}; submit it with: sbatch "
                                          "--dependency=afterany:{} {}", array_job, error.what(), array_job,
                                          shell_quote(merge_script.string())));
    }
    out << fmt::format("shardrun: submitted {} to Slurm: job {}{}, merge job {} (after every element ends)\n",
                       files.job_name, array_job, elements, merge_job);
    out << fmt::format("  scripts and logs: {}/\n", files.dir.string());
    out << element_note(options, files);
    out << fmt::format("  follow it: squeue -j {},{}; shardrun status {}\n", array_job, merge_job,
                       shell_quote(files.output.string()));
    return 0;
}

int submit_aws_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    write_entrypoint(files);
    const auto definition = write_json(files, "array-job.json", aws_array_job_definition(options, files));
    const auto submit = write_json(files, "array-submit.json", aws_array_submit(options, files));
    const auto mnp_definition = write_json(files, "multinode-job.json", aws_multinode_job_definition(options, files));
    const auto mnp_submit = write_json(files, "multinode-submit.json", aws_multinode_submit(options, files));
    out << fmt::format("shardrun: wrote the AWS Batch job files of {} to {}/ (nothing submitted from here)\n",
                       files.job_name, files.dir.string());
    out << fmt::format("  array job, {} element(s) of {} rank(s):\n", options.array, options.ranks_per_node);
    out << fmt::format("    aws batch register-job-definition --cli-input-json file://{}\n", definition);
    out << fmt::format("    aws batch submit-job --cli-input-json file://{} --job-queue {}\n", submit, aws_default_queue);
    out << fmt::format("  or the whole job as one multi-node parallel job on {} node(s):\n", options.nodes);
    out << fmt::format("    aws batch register-job-definition --cli-input-json file://{}\n", mnp_definition);
    out << fmt::format("    aws batch submit-job --cli-input-json file://{} --job-queue {}\n", mnp_submit, aws_default_queue);
    out << fmt::format("  image {}; {} and the output must be on a file system the containers mount at the same path\n",
                       options.image, files.dir.string());
    out << element_note(options, files);
    return 0;
}

int submit_gcp_batch(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    write_entrypoint(files);
    const auto job = write_json(files, "job.json", gcp_batch_job(options, files));
    out << fmt::format("shardrun: wrote the Google Cloud Batch job of {} to {} (nothing submitted from here)\n",
                       files.job_name, job);
    out << fmt::format("  {} task(s) of {} rank(s); submit it with:\n", options.array, options.ranks_per_node);
    out << fmt::format("    gcloud batch jobs submit {} --location REGION --config {}\n", gcp_job_name(files), job);
    out << fmt::format("  image {}; {} and the output must be on a volume the VMs mount at the same path\n",
                       options.image, files.dir.string());
    out << element_note(options, files);
    return 0;
}

}  // namespace shardrun::submit
