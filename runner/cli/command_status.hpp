#pragma once

#include <cstddef>
#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/** `shardrun status OUT`: counts by status per array element and rank, failed tasks, missing elements. */
class StatusCommand : public Command {
public:
    std::string_view name() const noexcept override { return "status"; }
    std::string_view synopsis() const noexcept override
    {
        return "show done / failed / pending tasks of an output, per array element and rank";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5"; }
    /** @return 0 when every task of the job has a final status, 1 otherwise */
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
    bool json_ = false;
    std::size_t lines_ = 5;
};

}  // namespace shardrun::cli
