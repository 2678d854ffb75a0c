#include "runner/cli/command_status.hpp"

#include <iostream>

#include "io/read/status_report.hpp"
#include "runner/errors.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/remote_copy.hpp"
#include "runner/storage/remote_task_logs.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void StatusCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("output", po::value<std::string>(&path_), "the results file (output.path of the job)")
        ("json", po::bool_switch(&json_), "print one JSON object instead of a table")
        ("by-host", po::bool_switch(&by_host_), "one row per host (ranks, ok, failed, busy and mean task seconds) "
                                                "instead of per rank")
        ("lines", po::value<std::size_t>(&lines_)->default_value(5), "last stderr lines shown per failed task");
    positional.add("output", 1);
}

CommandDoc StatusCommand::doc() const
{
    return {
        .description =
            "Reads an output (the results file, or the shards of array elements beside it, written by a run that "
            "may still be going) and prints how many tasks are done, failed and pending, per array element and per "
            "rank (per host with `--by-host`), the last stderr lines of each failed task, and the array elements "
            "never started. It only reads files and needs no `mpirun`, so it runs on a login node while the job "
            "runs; an `s3://` or `gs://` output is read through a downloaded copy.\n\n"
            "Reach for it to follow a run and to decide what comes next. Its exit code says whether the output is "
            "complete, has failed tasks, needs a `run --resume` or a `merge`, or is being written right now, so a "
            "script can branch on it.",
        .example = "shardrun status results/heat-sweep.h5",
        .exit_codes = {
            // docs/concepts.md "Exit codes" quotes these rows as they are (tests/cli/docs/page_exit_codes_test.py).
            {status_all_ok, "complete: every task ok"},
            {status_failed_tasks, "complete, but some tasks failed after their retries (`run --resume` retries "
                                  "them)"},
            {exit_bad_input, "usage error, or no output at that path"},
            {status_pending, "not complete and no run is writing it: tasks are pending or array elements missing "
                             "(`run --resume`, or run the missing elements, then `merge`), or every element finished "
                             "but `merge` has not written the results file yet"},
            {status_running, "a run is writing it right now (what it printed is a snapshot)"},
            {status_unreachable, "an output in a bucket that could not be downloaded (one line quoting rclone, "
                                 "nothing printed): nothing is known of its tasks; try again once the bucket answers"},
        },
    };
}

void StatusCommand::check(const po::variables_map& values)
{
    if (!values.count("output")) SHARDRUN_THROW(UsageError, "status: name the results file, e.g. shardrun status results/heat.h5");
}

namespace {

/** open_remote_copy(), whose failed download exits status_unreachable: 1 would read as "failed tasks". */
std::unique_ptr<storage::RemoteCopy> open_copy(std::string& path)
{
    try {
        return storage::open_remote_copy(path);
    } catch (const storage::TransferError& error) {
        if (error.exit_code() != exit_task_failed) throw;  // no output at that URL: a usage error (2), as for a path
        throw storage::TransferError(error.file(), error.line(), error.what(), status_unreachable, error.cause());
    }
}

}  // namespace

int StatusCommand::run()
{
    // Reads files only: no MPI, so it runs on a login node while the job is still going.
    const auto remote = open_copy(path_);  // an s3:// or gs:// output: a downloaded copy
    auto report = io::status_report(path_, lines_);
    if (remote && !report.failed_tasks.empty()) {
        // The failed tasks' output the bucket keeps comes down beside the copy; read again, with it.
        std::vector<std::uint64_t> ids;
        for (const auto& task : report.failed_tasks) ids.push_back(task.task_id);
        try {
            storage::fetch_task_logs(remote->remote(), path_, ids);
            report = io::status_report(path_, lines_);
        } catch (const storage::TransferError& error) {
            // The counts were read: they are worth more than the logs that could not be.
            std::cerr << "shardrun: status: warning: the failed tasks' logs could not be read from the bucket: " << error.what()
                      << "\n";
        }
    }
    const auto text = json_ ? io::status_json(report) : io::status_text(report, by_host_);
    std::cout << (remote ? remote->named(text) : text);
    return status_exit_code(report);
}

int status_exit_code(const io::StatusReport& report)
{
    if (report.running()) return status_running;
    if (!report.complete) return status_pending;
    return report.failed > 0 ? status_failed_tasks : status_all_ok;
}

}  // namespace shardrun::cli
