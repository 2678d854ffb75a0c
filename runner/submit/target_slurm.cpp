// `shardrun submit --to slurm`: an sbatch array job and a merge job that runs after it.
#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "runner/errors.hpp"
#include "runner/submit/sbatch.hpp"
#include "runner/submit/slurm_options.hpp"
#include "runner/submit/submit_resources.hpp"
#include "runner/submit/slurm_scripts.hpp"
#include "runner/submit/submit_targets.hpp"
#include "runner/submit/target_support.hpp"

namespace shardrun::submit {
namespace {

// An array of multi-node elements is what Slurm does natively: --array N --nodes M is N jobs of M nodes.
void validate_slurm(SubmitOptions& options)
{
    reject_cloud_options(options);
    validate_slurm_options(options);
}

// Every node of an element runs ranks_per_node ranks of one srun.
long slurm_ranks(const SubmitOptions& options) { return options.nodes * options.ranks_per_node; }

int submit_slurm(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    const auto run_script = files.dir / "run.sbatch";
    const auto merge_script = files.dir / "merge.sbatch";
    const auto elements = options.array > 1 ? fmt::format(" (elements 0-{})", options.array - 1) : std::string();
    if (options.dry_run) {
        write_text_file(run_script, slurm_run_script(options, files), true);
        write_text_file(merge_script, slurm_merge_script(options, files), true);
        out << "# " << run_script.string() << "\n" << slurm_run_script(options, files) << "\n";
        out << "# " << merge_script.string() << "\n" << slurm_merge_script(options, files) << "\n";
        out << "# dry run: nothing submitted; these two commands would submit it:\n";
        out << "sbatch --parsable " << shell_quote(run_script.string()) << "\n";
        out << "sbatch --parsable --dependency=afterany:<array job id> " << shell_quote(merge_script.string()) << "\n";
        return 0;
    }
    // An earlier submission into this folder may still be queued, and its hints name run.sbatch:
    // the new files (the job copy too) wait beside theirs, and replace them only once sbatch took
    // the job. sbatch keeps its own copy of the script, so the staged name is all it needs; the
    // job reads job.yaml only after Slurm started it and srun checked its plugins, long after the
    // rename that follows sbatch's answer.
    SubmitFiles staged = files;
    std::string array_job;
    try {
        write_staged_file(staged, run_script, slurm_run_script(options, files), true);
        write_staged_file(staged, merge_script, slurm_merge_script(options, files), true);
        array_job = sbatch({"--parsable", run_script.string() + std::string(staged_suffix)});
    } catch (const Error&) {
        discard_staged(staged);
        throw;
    }
    publish_staged(staged);
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


void add_slurm_options(boost::program_options::options_description& options, SubmitOptions& o)
{
    namespace po = boost::program_options;
    options.add_options()
        ("partition", po::value<std::string>(&o.partition), "Slurm partition")
        ("account", po::value<std::string>(&o.account), "slurm: --account of both jobs")
        ("qos", po::value<std::string>(&o.qos), "slurm: --qos of the array job")
        ("mem", po::value<std::string>(&o.mem), "slurm: --mem of each node of the array job, as sbatch takes it (64G)")
        ("cpus-per-task", po::value<long>(&o.cpus_per_task), "slurm: --cpus-per-task of each rank")
        ("sbatch", po::value<std::vector<std::string>>(&o.sbatch_lines)->composing(),
         "slurm: one more #SBATCH option for the array job, e.g. --sbatch constraint=a100 (repeatable)")
        ("merge-partition", po::value<std::string>(&o.merge_partition),
         "slurm: partition of the merge job (default: the cluster's default partition)")
        ("merge-time", po::value<std::string>(&o.merge_time), "slurm: time limit of the merge job (default 1:00:00)")
        ("max-requeues", po::value<long>(&o.max_requeues),
         "slurm: requeues of one element after a drain, at most (default 20; 0: never); a drain before any task "
         "finished or wrote to its checkpoint folder is never requeued, nor a USR1 sent by hand to a rank rather "
         "than to the batch script (docs/launchers/slurm.md)");
}

const OptionGroup slurm_options{"Slurm (--to slurm)", add_slurm_options};
const OptionGroup* const slurm_option_groups[] = {&slurm_options};

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; submit_targets.cpp lists it.
extern const TargetEntry slurm_target{"slurm", "Slurm", slurm_ranks, true, validate_slurm, submit_slurm,
                                      slurm_option_groups, check_slurm_job, true};

}  // namespace shardrun::submit
