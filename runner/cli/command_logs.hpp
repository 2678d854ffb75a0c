#pragma once

#include <cstdint>
#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * `shardrun logs OUTPUT TASK`: a task's stdout (or stderr) by its id, while it runs (its
 * slot's live file, found through the index in <output>.tasks/, runner/process/live_index.hpp)
 * or after it ended (the kept <output>.tasks/<id>/stdout.<attempt>); `--follow` streams new
 * lines until the task ends.
 */
class LogsCommand : public Command {
public:
    std::string_view name() const noexcept override { return "logs"; }
    std::string_view synopsis() const noexcept override
    {
        return "print a task's stdout or stderr by task id, while it runs or after; --follow streams it";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5 TASK"; }
    CommandDoc doc() const override;
    /** @return 0 when output was found (or followed to the task's end), 1 when the task kept none */
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
    std::string task_text_;
    std::uint64_t task_ = 0;
    int attempt_ = 0;  ///< 0: the latest
    int member_ = 0;
    bool stderr_ = false;
    bool follow_ = false;
};

}  // namespace shardrun::cli
