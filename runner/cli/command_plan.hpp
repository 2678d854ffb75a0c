#pragma once

#include "runner/cli/command.hpp"
#include "runner/env/scheduler.hpp"
#include "runner/gpu/gpu_packing.hpp"
#include "runner/run/plan/plan_report.hpp"

namespace shardrun::cli {

/** `shardrun plan JOB.yaml --ranks R`: where each task would run; runs nothing, needs no mpirun. */
class PlanCommand : public Command {
public:
    std::string_view name() const noexcept override { return "plan"; }
    std::string_view synopsis() const noexcept override
    {
        return "show how a job's tasks split over array elements and ranks; runs nothing";
    }
    std::string_view arguments() const noexcept override { return "JOB.yaml --ranks R [--ranks-per-node N]"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string job_file_;
    std::vector<std::string> overrides_;
    int ranks_ = 1;
    run::PlanNodes nodes_;
    std::string hosts_;
    bool json_ = false;
    int tasks_per_gpu_ = 0;  ///< --tasks-per-gpu: the job's tasks_per_gpu (a --set), 0: the job's own
    std::string mig_text_;
    gpu::MigSplit mig_;      ///< --mig: each made-up GPU split into MIG instances
    env::ArrayOverrides array_;
};

}  // namespace shardrun::cli
