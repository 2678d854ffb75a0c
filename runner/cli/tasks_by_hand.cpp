#include "runner/cli/tasks_by_hand.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

/** $TMPDIR/shardrun-task-XXXXXX/<job file's stem>.h5: a task by hand never touches the job's own output. */
std::string scratch_output(const std::string& job_file)
{
    const char* tmp = std::getenv("TMPDIR");
    auto pattern = (std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "shardrun-task-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        SHARDRUN_THROW(UsageError, fmt::format("--task: cannot make a scratch folder {}: {}", pattern, std::strerror(errno)));
    }
    return (std::filesystem::path(pattern) / std::filesystem::path(job_file).stem()).string() + ".h5";
}

}  // namespace

int run_tasks_by_hand(run::RunOptions options, const std::vector<std::uint64_t>& ids, const std::string& output)
{
    const auto path = output.empty() ? scratch_output(options.job_file) : output;
    // Last, so it wins over a --set of the same field: the job's own output is never written.
    options.overrides.push_back("output.path=" + path);
    int worst = 0;
    try {
        for (const auto id : ids) {
            options.only_task = id;
            const int code = run::run_job(options);
            if (code != 0 && (worst == 0 || code > worst)) worst = code;
        }
    } catch (...) {
        // Bad input is refused before anything is written: the scratch folder goes too (only if empty).
        std::error_code ignored;
        if (output.empty()) std::filesystem::remove(std::filesystem::path(path).parent_path(), ignored);
        throw;
    }
    // Each task is the array element of its id: merge joins them into one file h5py and xarray read.
    std::cerr << fmt::format("shardrun: output {} (array element per task; `shardrun merge {}` joins them)\n", path, path);
    return worst;
}

}  // namespace shardrun::cli
