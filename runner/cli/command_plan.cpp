#include "runner/cli/command_plan.hpp"

#include <iostream>

#include "runner/cli/common_options.hpp"
#include "runner/errors.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/run/plan_report.hpp"
#include "runner/run/prepared_job.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void PlanCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("job", po::value<std::string>(&job_file_)->required(), "the job file (YAML or JSON)")
        ("ranks", po::value<int>(&ranks_)->default_value(1), "MPI ranks per array element")
        ("set", po::value<std::vector<std::string>>(&overrides_)->composing(), "override a job field: key.path=value")
        ("json", po::bool_switch(&json_), "print one JSON object");
    add_array_options(options);
    positional.add("job", 1);
}

void PlanCommand::check(const po::variables_map& values)
{
    array_ = read_array_options(values);
    if (ranks_ < 1) throw UsageError("--ranks must be at least 1");
}

int PlanCommand::run()
{
    const auto job = run::prepare_job(job_file_, overrides_);
    // Only the command line decides the array here: plan describes, it is not an array element.
    const auto array = env::resolve_array(env::SchedulerInfo{}, array_);
    const auto report = run::make_plan(job, ranks_, static_cast<int>(array.count),
                                       array_.index ? static_cast<int>(*array_.index) : -1);
    std::cout << (json_ ? run::plan_json(report) : run::plan_text(report));
    return 0;
}

}  // namespace shardrun::cli
