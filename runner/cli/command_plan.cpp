#include "runner/cli/command_plan.hpp"

#include <algorithm>
#include <iostream>

#include "runner/cli/common_options.hpp"
#include "runner/errors.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/run/plan_report.hpp"
#include "runner/run/route_plan.hpp"
#include "runner/run/prepared_job.hpp"

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
        ("json", po::bool_switch(&json_), "print one JSON object");
    add_array_options(options);
    positional.add("job", 1);
}

void PlanCommand::check(const po::variables_map& values)
{
    array_ = read_array_options(values);
    if (ranks_ < 1) SHARDRUN_THROW(UsageError, "--ranks must be at least 1");
    if (nodes_.ranks_per_node < 0) SHARDRUN_THROW(UsageError, "--ranks-per-node must be at least 1 (or 0: one node)");
    if (nodes_.gpus_per_node < 0) SHARDRUN_THROW(UsageError, "--gpus-per-node must be 0 or more");
    for (size_t start = 0; !hosts_.empty() && start <= hosts_.size();) {
        const auto comma = std::min(hosts_.find(',', start), hosts_.size());
        nodes_.hosts.push_back(hosts_.substr(start, comma - start));
        start = comma + 1;
    }
}

int PlanCommand::run()
{
    const auto job = run::prepare_job(job_file_, overrides_);
    // Only the command line decides the array here: plan describes, it is not an array element.
    const auto array = env::resolve_array(env::SchedulerInfo{}, array_);
    const auto report = run::make_plan(job, ranks_, static_cast<int>(array.count),
                                       array_.index ? static_cast<int>(*array_.index) : -1, nodes_);
    std::cout << (json_ ? run::plan_json(report) : run::plan_text(report));
    if (!json_) std::cout << run::route_plan_text(run::route_plan(job, nodes_.gpus_per_node));
    return 0;
}

}  // namespace shardrun::cli
