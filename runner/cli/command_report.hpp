#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * `shardrun report OUT [--png FILE] [--html FILE] [--stats FILE] [--run-gap S]`: a picture of a
 * run drawn from /attempts or /tasks (a timeline of attempts per rank with resumes marked, task
 * durations, busy and idle time per rank) by scripts/shardrun-report.py
 * with Python's h5py and matplotlib. The script is looked up, first found wins:
 * $SHARDRUN_REPORT_SCRIPT; <the executable's folder>/../share/shardrun/ (an installed tree);
 * the source tree's scripts/ (a build tree); <install prefix>/share/shardrun/ (a program that
 * links an installed libshardrun, once the sources are gone). Python: $SHARDRUN_PYTHON, else
 * the first of /usr/bin/python3 and python3 on PATH that imports h5py and matplotlib.
 */
class ReportCommand : public Command {
public:
    std::string_view name() const noexcept override { return "report"; }
    std::string_view synopsis() const noexcept override
    {
        return "draw a run: tasks per rank over time, task durations, busy time per rank (PNG, HTML)";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5"; }
    CommandDoc doc() const override;
    /** @return the script's exit code: 0 written, 2 bad input (one line on stderr) */
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string path_;
    std::string png_;
    std::string html_;
    std::string stats_;
    double run_gap_ = 60.0;
};

}  // namespace shardrun::cli
