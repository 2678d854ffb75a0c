#include "runner/cli/command_plan.hpp"

#include <algorithm>
#include <iostream>

#include "runner/cli/common_options.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/errors.hpp"
#include "runner/run/plan/plan_packing.hpp"
#include "runner/run/plan/plan_report.hpp"
#include "runner/run/plan/auto_device_plan.hpp"
#include "runner/run/setup/prepared_job.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void PlanCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("job", po::value<std::string>(&job_file_)->required(), "the job file (YAML or JSON)")
        ("ranks", po::value<int>(&ranks_)->default_value(1), "MPI ranks per array element")
        ("ranks-per-node", po::value<int>(&nodes_.ranks_per_node)->default_value(0),
         "ranks on each node, filled in rank order as mpirun maps by slot (0: all on one node)")
        ("gpus-per-node", po::value<int>(&nodes_.gpus_per_node)->default_value(0),
         "GPUs on each node; a rank gets local rank mod this (0: CPU)")
        ("hosts", po::value<std::string>(&hosts_), "node names in order, comma-separated (default node0, node1, ...)")
        ("set", po::value<std::vector<std::string>>(&overrides_)->composing(), "override a job field: key.path=value")
        ("tasks-per-gpu", po::value<int>(&tasks_per_gpu_)->default_value(0),
         "as the job's tasks_per_gpu: K tasks at once on each rank's GPU (0: the job's own)")
        ("mig", po::value<std::string>(&mig_text_),
         "split each made-up GPU into MIG instances, PROFILE:N (e.g. 3g.40gb:2); ranks bind to instances")
        ("json", po::bool_switch(&json_), "print one JSON object");
    add_array_options(options);
    positional.add("job", 1);
}

CommandDoc PlanCommand::doc() const
{
    return {
        .description =
            "Reads and checks a job file exactly as `run` would, then prints where its tasks would run for the ranks, "
            "nodes, GPUs and array elements you give: the tasks of each array element and rank, the groups of a "
            "multi-GPU job, how tasks share a GPU, and which tasks go to which device. It runs no task, needs no "
            "`mpirun` and writes nothing.\n\n"
            "Reach for it before a large or expensive run: to check a job file, and to see that the tasks split "
            "evenly over the ranks and array elements you mean to ask the scheduler for. `--json` gives the same "
            "plan to a script.",
        .example = "shardrun plan examples/heat-sweep.yaml --ranks 8 --ranks-per-node 4 --array-count 2",
        .exit_codes = {
            {exit_ok, "the plan was printed: the job file is valid"},
            {exit_bad_input, "bad input or usage: the job file does not validate (one line file:line:col: field: what "
                             "is wrong), an input or points file it names is missing, or an option is wrong"},
        },
    };
}

void PlanCommand::check(const po::variables_map& values)
{
    array_ = read_array_options(values);
    if (ranks_ < 1) SHARDRUN_THROW(UsageError, "--ranks must be at least 1");
    if (nodes_.ranks_per_node < 0) SHARDRUN_THROW(UsageError, "--ranks-per-node must be at least 1 (or 0: one node)");
    if (nodes_.gpus_per_node < 0) SHARDRUN_THROW(UsageError, "--gpus-per-node must be 0 or more");
    if (tasks_per_gpu_ < 0) SHARDRUN_THROW(UsageError, "--tasks-per-gpu must be 1 or more (0: the job's own)");
    if (tasks_per_gpu_ > 0) overrides_.push_back("tasks_per_gpu=" + std::to_string(tasks_per_gpu_));
    if (!mig_text_.empty()) {
        std::string problem;
        mig_ = gpu::parse_mig_split(mig_text_, &problem);
        if (!problem.empty()) SHARDRUN_THROW(UsageError, problem);
        if (nodes_.gpus_per_node <= 0) SHARDRUN_THROW(UsageError, "--mig splits the made-up GPUs: give --gpus-per-node too");
    }
    for (size_t start = 0; !hosts_.empty() && start <= hosts_.size();) {
        const auto comma = std::min(hosts_.find(',', start), hosts_.size());
        nodes_.hosts.push_back(hosts_.substr(start, comma - start));
        start = comma + 1;
    }
}

int PlanCommand::run()
{
    const auto job = run::prepare_job(job_file_, overrides_, {}, run::InputAccess::describe);
    // Only the command line decides the array here: plan describes, it is not an array element.
    const auto array = env::resolve_array(env::SchedulerInfo{}, array_);
    const auto report = run::make_plan(job, ranks_, static_cast<int>(array.count),
                                       array_.index ? static_cast<int>(*array_.index) : -1, nodes_);
    if (!json_) {
        std::cout << run::plan_text(report) << run::packing_text(job.spec, report, nodes_, mig_)
                  << run::route_plan_text(run::route_plan(job, nodes_.gpus_per_node));
        return 0;
    }
    // The packing joins plan_json's object as "gpu_packing" (null when there is none to show).
    auto object = nlohmann::json::parse(run::plan_json(report));
    object["gpu_packing"] = run::packing_json(job.spec, report, nodes_, mig_);
    std::cout << object.dump(2) << "\n";
    return 0;
}

}  // namespace shardrun::cli
