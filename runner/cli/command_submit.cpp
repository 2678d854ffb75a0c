#include "runner/cli/command_submit.hpp"

#include <iostream>

#include "runner/errors.hpp"
#include "runner/placement/placement.hpp"
#include "runner/run/prepared_job.hpp"
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
        ("partition", po::value<std::string>(&o.partition), "Slurm partition")
        ("image", po::value<std::string>(&o.image)->default_value(std::string(submit::default_image)),
         "container image of the cloud jobs (the project's Dockerfile builds shardrun:latest)")
        ("gpu-type", po::value<std::string>(&o.gpu_type)->default_value(std::string(submit::default_gpu_type)),
         "Google Cloud accelerator type when --gpus-per-rank > 0")
        ("workdir", po::value<std::string>(&o.workdir),
         "the folder the cloud containers run in; with an s3:// or gs:// output it is uploaded next to it "
         "(without .git and what git ignores) and downloaded before the run")
        ("dry-run", po::bool_switch(&o.dry_run), "write the files and print what would be submitted; submit nothing")
        ("set", po::value<std::vector<std::string>>(&o.overrides)->composing(),
         "override a job field: key.path=value (repeatable; passed on to shardrun run)")
        ("shardrun", po::value<std::string>(&o.shardrun),
         "the shardrun the scripts run (default: this one for slurm, shardrun on the image's PATH for the clouds)")
        ("vcpus", po::value<long>(&o.vcpus), "clouds: vCPUs per container / VM (default: 8 per GPU, else 1 per rank)")
        ("memory", po::value<std::string>(&o.memory),
         "clouds: memory per container / VM, e.g. 30G or 30720M (default: 30G per GPU, else 2G per rank)")
        ("shm-size", po::value<std::string>(&o.shm_size),
         "clouds: /dev/shm size, e.g. 8G (default: 8G per GPU, else 1G; at most half the memory)")
        ("spot", po::bool_switch(&o.spot),
         "clouds: Spot VMs (gcp-batch: provisioningModel SPOT; aws-batch: queue shardrun-spot, a SPOT compute environment)")
        ("machine-type", po::value<std::string>(&o.machine_type),
         "gcp-batch: machine type (default: from --gpu-type and the GPUs per VM, e.g. g2-standard-8 for one nvidia-l4)")
        ("account", po::value<std::string>(&o.account), "slurm: --account of both jobs")
        ("qos", po::value<std::string>(&o.qos), "slurm: --qos of the array job")
        ("mem", po::value<std::string>(&o.mem), "slurm: --mem of each node of the array job, as sbatch takes it (64G)")
        ("cpus-per-task", po::value<long>(&o.cpus_per_task), "slurm: --cpus-per-task of each rank")
        ("sbatch", po::value<std::vector<std::string>>(&o.sbatch_lines)->composing(),
         "slurm: one more #SBATCH option for the array job, e.g. --sbatch constraint=a100 (repeatable)")
        ("merge-partition", po::value<std::string>(&o.merge_partition),
         "slurm: partition of the merge job (default: the cluster's default partition)")
        ("merge-time", po::value<std::string>(&o.merge_time), "slurm: time limit of the merge job (default 1:00:00)");
    positional.add("job", 1);
}

void SubmitCommand::check(const po::variables_map& /*values*/)
{
    options_.target = &submit::find_target(target_);
    submit::validate(options_);
}

int SubmitCommand::run()
{
    // The same checks as `run` before anything is written: a queued job must not fail on its input.
    const auto job = run::prepare_job(options_.job_file, options_.overrides);
    placement::group_layout(0, static_cast<int>(options_.target->ranks_per_element(options_)), job.spec.gpus_per_task,
                            static_cast<int>(options_.ranks_per_node));
    const auto files = submit::plan_files(options_, job.spec);
    submit::write_job_copy(files, job.spec, options_);
    return options_.target->submit(options_, files, std::cout);
}

}  // namespace shardrun::cli
