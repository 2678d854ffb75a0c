#pragma once

#include "runner/cli/command.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::cli {

/**
 * `shardrun submit JOB.yaml --to slurm|aws-batch|gcp-batch`: validates the job as `run` does,
 * copies it to <output.path>.submit/<target>/ and writes the target's scripts or job files
 * there; Slurm ones are submitted with sbatch (unless --dry-run), cloud ones only written.
 */
class SubmitCommand : public Command {
public:
    std::string_view name() const noexcept override { return "submit"; }
    std::string_view synopsis() const noexcept override
    {
        return "write a job's Slurm / AWS Batch / Google Cloud Batch files and submit it";
    }
    std::string_view arguments() const noexcept override { return "JOB.yaml --to slurm|aws-batch|gcp-batch"; }
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    submit::SubmitOptions options_;
    std::string target_;
};

}  // namespace shardrun::cli
