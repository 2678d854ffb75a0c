#pragma once

#include "runner/cli/command.hpp"
#include "runner/env/scheduler.hpp"

namespace shardrun::cli {

/** `shardrun info`: ranks, nodes, devices, scheduler, array position and build features. */
class InfoCommand : public Command {
public:
    std::string_view name() const noexcept override { return "info"; }
    std::string_view synopsis() const noexcept override
    {
        return "show ranks, nodes, GPUs, scheduler, array position and build features";
    }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    bool json_ = false;
    env::ArrayOverrides overrides_;
};

}  // namespace shardrun::cli
