#include "runner/cli/tasks_by_hand.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "runner/cli/job_from_bucket.hpp"
#include "runner/errors.hpp"
#include "runner/job/remote_path.hpp"

namespace shardrun::cli {
namespace {

/** $TMPDIR/shardrun-task-XXXXXX: a task by hand never touches the job's own output. */
std::string scratch_folder()
{
    const char* tmp = std::getenv("TMPDIR");
    auto pattern = (std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "shardrun-task-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        SHARDRUN_THROW(UsageError, fmt::format("--task: cannot make a scratch folder {}: {}", pattern, std::strerror(errno)));
    }
    return pattern;
}

}  // namespace

int run_tasks_by_hand(run::RunOptions options, const std::vector<std::uint64_t>& ids, const std::string& output)
{
    namespace fs = std::filesystem;
    const std::string url = storage::is_remote(options.job_file) ? options.job_file : std::string();
    // The scratch output's folder, which also holds a job copied out of a bucket.
    const auto folder = output.empty() || !url.empty() ? scratch_folder() : std::string();
    try {
        if (!url.empty()) {
            // JOB is an output in a bucket: the job it records, run here into a local output.
            const auto recorded = job_from_bucket(url, folder);
            options.job_file = recorded.job_file;
            if (options.job_dir.empty()) options.job_dir = recorded.job_dir;
            std::cerr << fmt::format("shardrun: job of {} (as recorded there, before any --set) in {}\n", url, options.job_file);
        }
    } catch (...) {
        std::error_code ignored;
        fs::remove_all(folder, ignored);  // nothing but what job_from_bucket wrote
        throw;
    }
    // <job file's stem>.h5 in the scratch folder: for a URL, the recorded job file's stem.
    const auto path = output.empty() ? (fs::path(folder) / fs::path(options.job_file).stem()).string() + ".h5" : output;
    // Last, so it wins over a --set of the same field: the job's own output is never written.
    options.overrides.push_back("output.path=" + path);
    int worst = 0;
    try {
        for (std::size_t k = 0; k < ids.size(); ++k) {
            options.only_task = ids[k];
            options.finalize_mpi = k + 1 == ids.size();  // every task's run but the last keeps MPI for the next
            const int code = run::run_job(options);
            if (code != 0 && (worst == 0 || code > worst)) worst = code;
        }
        // With --output, the folder held only the job copied out of the bucket.
        std::error_code kept;
        if (!output.empty() && !folder.empty()) fs::remove_all(folder, kept);
    } catch (...) {
        // Bad input is refused before anything is written: the scratch folder goes too (only if empty).
        std::error_code ignored;
        if (!url.empty()) fs::remove(options.job_file, ignored);
        if (!folder.empty()) fs::remove(folder, ignored);
        throw;
    }
    // Each task is the array element of its id: merge joins them into one file h5py and xarray read.
    std::cerr << fmt::format("shardrun: output {} (array element per task; `shardrun merge {}` joins them)\n", path, path);
    return worst;
}

}  // namespace shardrun::cli
