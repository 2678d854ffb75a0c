#pragma once

#include "runner/cli/command.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::cli {

/**
 * `shardrun submit JOB.yaml --to TARGET`: validates the job as `run` does, copies it to
 * <output.path>.submit/<target>/ and writes the target's scripts or job files there; a target
 * that can submit does (unless --dry-run), the others only write. The targets, their help and
 * their own options come from the target table (runner/submit/submit_targets.hpp).
 */
class SubmitCommand : public Command {
public:
    std::string_view name() const noexcept override { return "submit"; }
    std::string_view synopsis() const noexcept override;
    std::string_view arguments() const noexcept override;
    CommandDoc doc() const override;
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
