#include "runner/cli/command_merge.hpp"

#include <iostream>
#include <vector>

#include "io/job_output.hpp"
#include "io/layout/stopped_note.hpp"
#include "runner/errors.hpp"
#include "runner/storage/remote_copy.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

std::string join(const std::vector<int>& values)
{
    std::string text;
    for (const int value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
    return text;
}

}  // namespace

void MergeCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()("output", po::value<std::string>(&path_), "the results file (output.path of the job)");
    positional.add("output", 1);
}

CommandDoc MergeCommand::doc() const
{
    return {
        .description =
            "Joins the outputs of the array elements of one job (the shards each element wrote beside the results "
            "file) into the one results file, a row per task, and says how many tasks are ok, failed and pending. "
            "Elements never started or not finished are named on stderr; their tasks stay pending in the file, so "
            "it never looks complete when it is not. Once the file is complete, the elements' own result files "
            "are removed. An `s3://` or `gs://` output is merged in a copy and published back.\n\n"
            "Reach for it after the elements of an array job ended, when their results were not joined yet (a "
            "Slurm job from `shardrun submit` runs a merge job for you), and again after rerunning some elements. "
            "Running it twice is safe.",
        .example = "shardrun merge results/heat-sweep.h5",
        .exit_codes = {
            {exit_ok, "every array element finished and every task has a final status (ok or failed: status tells "
                      "which)"},
            {exit_task_failed, "the file was written, but array elements are missing or not finished (named on "
                               "stderr) or tasks are still pending: run them, then merge again; or it could not be "
                               "written (a full disk)"},
            {exit_bad_input, "usage error; no array element of that output has finished, so there is nothing to learn "
                             "the job from (no output at that path included); or elements of another job or array "
                             "count are there (named; nothing merged)"},
        },
    };
}

void MergeCommand::check(const po::variables_map& values)
{
    if (!values.count("output")) SHARDRUN_THROW(UsageError, "merge: name the results file, e.g. shardrun merge results/heat.h5");
}

int MergeCommand::run()
{
    const auto remote = storage::open_remote_copy(path_);  // an s3:// or gs:// output: merged in a copy, then published
    const auto report = io::merge_output(path_);
    if (remote) remote->publish();
    const auto& s = report.summary;
    std::cout << "shardrun: merged " << report.merged_elements << " of " << report.array_count << " array element(s) into "
              << (remote ? remote->remote().url : s.master_path) << ": " << s.ok
              << " ok, " << s.failed << " failed, "
              // shardrun writes `skipped` for no task (README, "Task states"): named only when an older file has some.
              << (s.skipped > 0 ? std::to_string(s.skipped) + " skipped, " : std::string()) << s.pending << " pending\n";
    // A missing element the platform stopped while its ranks started left only its note: started, nothing committed.
    const auto notes = io::stopped_notes(path_);
    std::vector<int> never_started;
    for (const int index : report.missing_elements) {
        if (!notes.contains(index)) never_started.push_back(index);
    }
    if (!never_started.empty()) {
        std::cerr << "shardrun: array elements never started: " << join(never_started)
                  << "; run them (--array-index N), then merge again\n";
    }
    for (const int index : report.missing_elements) {
        const auto note = notes.find(index);
        if (note == notes.end()) continue;
        std::cerr << "shardrun: array element " << index << " started, and was " << note->second
                  << ": nothing of it was committed; run it (--array-index " << index << "), then merge again\n";
    }
    if (!report.incomplete_elements.empty()) {
        std::cerr << "shardrun: array elements not finished: " << join(report.incomplete_elements)
                  << "; rerun them with --resume (or wait for them), then merge again\n";
    }
    return report.exit_code() == 0 ? exit_ok : exit_task_failed;
}

}  // namespace shardrun::cli
