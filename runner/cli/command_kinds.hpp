#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/** `shardrun kinds [NAME]`: the task kinds, or one kind's parameter table. Needs no job file and no MPI. */
class KindsCommand : public Command {
public:
    std::string_view name() const noexcept override { return "kinds"; }
    std::string_view synopsis() const noexcept override
    {
        return "list the task kinds, or the parameters one of them takes";
    }
    std::string_view arguments() const noexcept override { return "[NAME]"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string kind_;
};

}  // namespace shardrun::cli
