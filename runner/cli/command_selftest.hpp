#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * `shardrun selftest [--device cpu|cuda|all]`: every kernel on small random inputs on each
 * device found, against the float64 CPU reference; a table; exit 0 only if every check passes.
 */
class SelftestCommand : public Command {
public:
    std::string_view name() const noexcept override { return "selftest"; }
    std::string_view synopsis() const noexcept override
    {
        return "check every kernel on this machine's CPU and GPUs against a float64 reference";
    }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string device_ = "all";
};

}  // namespace shardrun::cli
