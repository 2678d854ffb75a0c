#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/cli/command.hpp"
#include "runner/run/run_job.hpp"

namespace shardrun::cli {

/** `shardrun run JOB.yaml`: runs the job on every rank of the MPI world. */
class RunCommand : public Command {
public:
    std::string_view name() const noexcept override { return "run"; }
    std::string_view synopsis() const noexcept override { return "run a job file's tasks over the MPI ranks"; }
    std::string_view arguments() const noexcept override { return "JOB.yaml"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    run::RunOptions options_;
    std::string progress_;
    std::string max_failures_;  ///< --max-failures, passed on as --set max_failures=N
    bool quiet_ = false;
    std::vector<std::uint64_t> tasks_;  ///< --task ID (repeatable): these tasks by hand, one process
    std::string output_;                ///< --output: where --task writes (default: a scratch folder)
};

}  // namespace shardrun::cli
