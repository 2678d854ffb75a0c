#include "runner/cli/command_submit.hpp"

#include <iostream>

#include "runner/errors.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/setup/prepared_job.hpp"
#include "runner/submit/cloud_identity.hpp"
#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_targets.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
void SubmitCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    auto& o = options_;
    options.add_options()
        ("job", po::value<std::string>(&o.job_file)->required(), "the job file (YAML or JSON)")
        ("to", po::value<std::string>(&target_)->required(), submit::target_names(" | ", " | ").c_str())
        ("array", po::value<long>(&o.array)->default_value(1), "array elements; element i takes the i-th block of tasks")
        ("nodes", po::value<long>(&o.nodes)->default_value(1),
         "nodes per array element (slurm); nodes of the multi-node job (aws-batch)")
        ("ranks-per-node", po::value<long>(&o.ranks_per_node)->default_value(1), "MPI ranks on each node")
        ("gpus-per-rank", po::value<long>(&o.gpus_per_rank)->default_value(0), "GPUs for each rank (0: CPU only)")
        ("time", po::value<std::string>(&o.time), "time limit, as sbatch --time (e.g. 90, 2:00:00, 1-12)")
        ("workdir", po::value<std::string>(&o.workdir),
         "the folder the cloud containers run in; with an s3:// or gs:// output it is uploaded next to it "
         "(without .git and what git ignores) and downloaded before the run")
        ("dry-run", po::bool_switch(&o.dry_run), "write the files and print what would be submitted; submit nothing")
        ("set", po::value<std::vector<std::string>>(&o.overrides)->composing(),
         "override a job field: key.path=value (repeatable; passed on to shardrun run)")
        ("shardrun", po::value<std::string>(&o.shardrun),
         "the shardrun the scripts run (default: this one for slurm, shardrun on the image's PATH for the clouds)");
    // The targets bring the rest (runner/submit/target_<name>.cpp), each group once.
    for (const auto* group : submit::option_groups()) {
        po::options_description own{std::string(group->title)};
        group->add(own, o);
        options.add(own);
    }
    positional.add("job", 1);
}

CommandDoc SubmitCommand::doc() const
{
    return {
        .description =
            "Checks a job file as `run` would, copies it into `OUTPUT.h5.submit/TARGET/` and writes there what the "
            "target named by `--to` runs: for Slurm an array script and a merge script, which it submits with "
            "`sbatch` (the merge job waits for every element); for AWS Batch and Google Cloud Batch the job "
            "definitions and an entrypoint, printed with the `aws` or `gcloud` commands that submit them (it submits "
            "nothing to a cloud itself). With an `s3://` or `gs://` output it uploads the job, and `--workdir`, "
            "next to it. `--dry-run` writes the files and prints what would be submitted.\n\n"
            "Reach for it instead of writing `sbatch` scripts or cloud job JSON by hand: array size, nodes, ranks, "
            "GPUs and time limit come from its options, and the files run `shardrun run` the way each scheduler "
            "needs, requeue and resume included.",
        .example = "shardrun submit examples/heat-sweep.yaml --to slurm --array 4 --nodes 2 --time 1:00:00",
        .exit_codes = {
            {exit_ok, "the files were written (for Slurm: and both jobs queued; --dry-run submits nothing)"},
            {exit_task_failed, "a submission step failed (named, with its own message): sbatch refused the job, the "
                               "array job was queued but its merge job was not (the command to queue it is printed), "
                               "the upload to the bucket failed, or a file could not be written"},
            {exit_bad_input, "bad input or usage: the job file does not validate, or an option does not fit the "
                             "target (one line naming it); nothing written or submitted"},
        },
    };
}

std::string_view SubmitCommand::synopsis() const noexcept
{
    static const std::string text = "write a job's " + submit::target_titles() + " files and submit it";
    return text;
}

std::string_view SubmitCommand::arguments() const noexcept
{
    static const std::string text = "JOB.yaml --to " + submit::target_names("|", "|");
    return text;
}

void SubmitCommand::check(const po::variables_map& values)
{
    // Options with a default_value are in `values` too; only what the user typed counts as asked for.
    for (const auto& [option, value] : values) {
        if (!value.defaulted()) options_.given.insert(option);
    }
    options_.target = &submit::find_target(target_);
    submit::validate(options_);
}

int SubmitCommand::run()
{
    // The same checks as `run` before anything is written: a queued job must not fail on its input.
    const auto job = run::prepare_job(options_.job_file, options_.overrides, {}, run::InputAccess::describe);
    placement::group_layout(0, static_cast<int>(options_.target->ranks_per_element(options_)), job.spec.gpus_per_task,
                            static_cast<int>(options_.ranks_per_node));
    if (options_.target->check_job != nullptr) options_.target->check_job(options_, job.spec);
    // A warning, not a refusal: a public image on Docker Hub is a choice some make on purpose.
    if (const auto warning = submit::image_registry_warning(options_); !warning.empty()) std::cerr << warning << '\n';
    auto files = submit::plan_files(options_, job.spec);
    submit::write_job_copy(files, job.spec, options_, options_.target->stages_files && !options_.dry_run);
    return options_.target->submit(options_, files, std::cout);
}

}  // namespace shardrun::cli
