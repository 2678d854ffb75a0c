#pragma once

#include "runner/bench/allreduce_bench.hpp"
#include "runner/cli/command.hpp"

namespace shardrun::cli {

/** `shardrun bench allreduce`: nccl-tests' allreduce table on the project's Communicator, under mpirun. */
class BenchCommand : public Command {
public:
    std::string_view name() const noexcept override { return "bench"; }
    std::string_view synopsis() const noexcept override
    {
        return "measure allreduce bandwidth like nccl-tests (size, time, algbw, busbw, #wrong)";
    }
    std::string_view arguments() const noexcept override { return "allreduce"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string collective_;
    std::string backend_;
    std::string min_text_;
    std::string max_text_;
    std::string json_path_;
    bench::AllreduceOptions options_;
};

/**
 * A byte count with an optional K, M or G suffix (powers of 1024), as nccl-tests' -b/-e.
 * @throws UsageError naming `option` when `text` is not one
 */
std::size_t parse_byte_size(const std::string& text, const std::string& option);

}  // namespace shardrun::cli
