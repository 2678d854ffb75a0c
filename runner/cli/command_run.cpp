#include "runner/cli/command_run.hpp"

#include "collectives/mpi/environment.hpp"
#include "runner/cli/common_options.hpp"
#include "runner/cli/tasks_by_hand.hpp"
#include "runner/env/launch_check.hpp"
#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/process/process_tree.hpp"
#include "runner/run/interrupt.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void RunCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("job", po::value<std::string>(&options_.job_file)->required(),
         "the job file (YAML or JSON); with --task also an output URL (s3://, gs://): the job recorded there")
        ("set", po::value<std::vector<std::string>>(&options_.overrides)->composing(),
         "override a job field: --set key.path=value (repeatable)")
        ("job-dir", po::value<std::string>(&options_.job_dir),
         "resolve the job's relative paths here instead of in the job file's folder (submit's copies use it)")
        ("resume", po::bool_switch(&options_.resume), "skip tasks committed by an earlier run of the same job")
        ("force", po::bool_switch(&options_.force), "delete an existing output and start over (not with --resume)")
        ("max-failures", po::value<std::string>(&max_failures_),
         "stop taking tasks after N failed tasks (the job field max_failures: N)")
        ("progress", po::value<std::string>(&progress_)->default_value("auto"),
         "auto | tty | plain | json | quiet")
        ("progress-interval", po::value<double>(&options_.progress_interval_seconds)->default_value(10),
         "seconds between progress lines when not on a TTY")
        ("quiet,q", po::bool_switch(&quiet_), "no progress and no summary (same as --progress=quiet)")
        ("task", po::value<std::vector<std::uint64_t>>(&tasks_)->composing(),
         "run only task ID, on this one process, as the job runs it, printing its stdout and its result as "
         "JSON (repeatable); into a scratch output unless --output")
        ("output", po::value<std::string>(&output_), "with --task: the output path (instead of a scratch folder)");
    add_array_options(options);
    positional.add("job", 1);
}

CommandDoc RunCommand::doc() const
{
    return {
        .description =
            "Runs every task of a job file on the ranks of the MPI world it was started in (`mpirun`, `srun`, a "
            "Slurm array element, an AWS Batch or Google Batch array job), each task on its rank's GPU or CPU, and "
            "writes every result into the HDF5 output the job names (`output.path`). It prints progress while it "
            "goes and a summary at the end. A task that fails is retried and recorded, and does not stop the others "
            "unless the job asks so (`fail_fast`, `max_failures`).\n\n"
            "Reach for it to run a job: under `mpirun -np N` for N ranks (started alone it is one rank). After a "
            "crash, a time limit or a stop, `--resume` runs only the tasks not committed yet. `--task ID` runs one "
            "task by hand on this process and prints its output, to see why it fails. Check a job with `shardrun "
            "plan` before a large run, and follow it with `shardrun status`.",
        .example = "mpirun -np 4 shardrun run examples/heat-sweep.yaml",
        // docs/concepts.md "Exit codes" explains each at length; these are the lines a script branches on.
        .exit_codes = {
            {exit_ok, "every task succeeded"},
            {exit_task_failed, "some tasks failed after their retries (the output is valid), the run gave up on its "
                               "failures (max_failures, fail_fast), results could not be written, or a rank stalled or "
                               "stopped responding"},
            {exit_bad_input, "bad input or usage: one line file:line:col: field: what is wrong; what is allowed; "
                             "nothing written"},
            {exit_interrupted, "interrupted (SIGTERM, SIGINT, a SIGUSR1 drain, or the budget ran out) with tasks left; "
                               "committed tasks are kept: run again with --resume"},
            {exit_drained_without_progress, "drained before any task finished in this run and no task it cut short "
                                            "checkpointed: the same time limit would cut it short again"},
        },
    };
}

void RunCommand::check(const po::variables_map& values)
{
    options_.array = read_array_options(values);
    // As an override of the job field: one parser checks it, and its error names the value given.
    if (values.count("max-failures")) options_.overrides.push_back("max_failures=" + max_failures_);
    options_.progress = quiet_ ? run::ProgressMode::quiet : run::parse_progress_mode(progress_);
    if (!(options_.progress_interval_seconds > 0)) SHARDRUN_THROW(UsageError, "--progress-interval must be positive");
    // --force deletes what --resume would keep: together they would silently throw committed results away.
    if (!output_.empty() && tasks_.empty()) {
        SHARDRUN_THROW(UsageError, "--output goes with --task; to change a job's output use --set output.path=PATH");
    }
    if (storage::is_remote(options_.job_file) && tasks_.empty()) {
        SHARDRUN_THROW(UsageError, options_.job_file + " is an output in object storage: `run URL --task ID` runs a task of "
                                   "the job recorded there; to run a whole job, give its job file");
    }
    // A task by hand prints its own stdout and result; the progress and summary of a run would bury them.
    if (!tasks_.empty() && values["progress"].defaulted()) options_.progress = run::ProgressMode::quiet;
    if (options_.resume && options_.force) {
        SHARDRUN_THROW(UsageError, "--resume and --force contradict each other: --resume keeps the committed results of the "
                                   "same job, --force deletes them and starts over; pass one");
    }
}

int RunCommand::run()
{
    // Before MPI starts threads: the guard is a fork of this process.
    process::start_orphan_guard();
    // Now, not once the run is set up: MPI_Init alone takes a while, and a signal before the
    // handler would end the rank with the default action (138, 143), which a Slurm element's
    // requeue logic does not read as a drain or a stop. After the guard's fork: it keeps its own.
    run::install_interrupt_handlers();
    env::check_launch();  // a launch MPI_Init cannot survive gets our one line, not Open MPI's 30
    collectives::MpiEnvironment mpi(nullptr, nullptr);
    if (!tasks_.empty()) return run_tasks_by_hand(options_, tasks_, output_);
    return run::run_job(options_);
}

}  // namespace shardrun::cli
