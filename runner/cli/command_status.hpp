#pragma once

#include <cstddef>
#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::io {
struct StatusReport;
}

namespace shardrun::cli {

/**
 * `status`'s exit codes (explained in StatusCommand::doc()): what the output needs next, so a
 * script can branch on it. 2 is a usage error or an unreadable path, as for every command.
 */
enum StatusExit : int {
    status_all_ok = 0,        ///< complete, every task ok
    status_failed_tasks = 1,  ///< complete, some tasks failed after their retries (run --resume retries them)
    status_pending = 3,       ///< not complete and no run writing it: run --resume (or merge) is the next step
    status_running = 4,       ///< a run is writing it now
    status_unreachable = 5,   ///< an output in a bucket that could not be downloaded: nothing is known; try again
};

/** The code of `report`: running first, then not complete, then failed tasks. */
int status_exit_code(const io::StatusReport& report);

/** `shardrun status OUT`: counts by status per array element and rank, failed tasks, missing elements. */
class StatusCommand : public Command {
public:
    std::string_view name() const noexcept override { return "status"; }
    std::string_view synopsis() const noexcept override
    {
        return "show done / failed / pending tasks of an output, per array element and rank";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5"; }
    CommandDoc doc() const override;
    /** @return status_exit_code() of the output */
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
    bool json_ = false;
    bool by_host_ = false;
    std::size_t lines_ = 5;
};

}  // namespace shardrun::cli
