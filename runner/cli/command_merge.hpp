#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/** `shardrun merge OUT`: one master file over the shards of every array element. */
class MergeCommand : public Command {
public:
    std::string_view name() const noexcept override { return "merge"; }
    std::string_view synopsis() const noexcept override { return "join the outputs of all array elements into one file"; }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5"; }
    CommandDoc doc() const override;
    /** @return 0 when every element finished and every task has a final status, 1 otherwise */
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
};

}  // namespace shardrun::cli
