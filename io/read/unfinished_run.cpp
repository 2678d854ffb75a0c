// A run killed with all its ranks leaves no summary; `status` and the next `run --resume` tell
// what its files still say: who held the output, when each rank last committed, and which
// tasks were running (their running indexes are left behind until the next run's sweep).
#include "io/read/unfinished_run.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"
#include "io/layout/run_end_reason.hpp"
#include "io/layout/running_index.hpp"

namespace shardrun::io {
namespace {

namespace fs = std::filesystem;

/** The lock file's line naming who held it, "" when it says nothing. */
std::string holder_of(const std::string& path, int array_index)
{
    const int fd = ::open(layout::lock_path(path, array_index).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    auto holder = layout::lock_holder(fd);
    ::close(fd);
    return holder;
}

double modified_seconds(const fs::path& file)
{
    struct stat info {};
    if (::stat(file.c_str(), &info) != 0) return 0;
    return static_cast<double>(info.st_mtim.tv_sec) + static_cast<double>(info.st_mtim.tv_nsec) * 1e-9;
}

/** Task ids that the slots' running indexes name (their leaders': a member's is the same task). */
std::vector<std::uint64_t> running_tasks(const std::string& path)
{
    std::vector<std::uint64_t> ids;
    for (const auto& entry : layout::running_entries(layout::tasks_dir(path))) {
        if (entry.member == 0) ids.push_back(entry.task);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
}

/** "19:20:03" of iso8601_utc's "2026-11-28T19:20:03Z". */
std::string clock_time(double seconds) { return iso8601_utc(seconds).substr(11, 8); }

}  // namespace

std::optional<UnfinishedRun> unfinished_run(const std::string& path, int array_index)
{
    const auto manifest = read_manifest(path, array_index);
    // stopped: it ended in order (a drain or stop) and said so in its summary; no crash to report.
    if (!manifest || manifest->finished > 0 || manifest->stopped > 0 || layout::lock_held(path, array_index)) {
        return std::nullopt;
    }
    UnfinishedRun run;
    run.holder = holder_of(path, array_index);
    run.reason = run_end_reason(path, array_index);
    for (const int rank : layout::rank_indexes(path, array_index)) {
        const auto segments = layout::segments(layout::rank_dir(path, array_index, rank));
        if (!segments.empty()) run.last_commits.emplace_back(rank, modified_seconds(segments.back()));
    }
    run.running_tasks = running_tasks(path);
    return run;
}

std::string unfinished_run_line(const UnfinishedRun& run)
{
    std::ostringstream line;
    if (!run.reason.empty()) {
        // A rank said why before it ended (a full disk): no guessing at a kill.
        line << "the last run ended without a summary on an error: " << run.reason;
    } else {
        line << "the last run ended without a summary (its ranks ended at once: a rank was killed, and one rank's "
                "death ends them all under mpirun; a second stop signal; or a host crashed)";
    }
    if (!run.holder.empty()) line << "; it was " << run.holder;
    if (run.last_commits.empty()) line << "; no rank committed anything;";
    for (std::size_t i = 0; i < run.last_commits.size(); ++i) {
        const auto& [rank, seconds] = run.last_commits[i];
        line << (i == 0 ? "; last commit per rank (UTC): " : ", ") << "rank " << rank << " " << clock_time(seconds)
             << (i + 1 == run.last_commits.size() ? ";" : "");
    }
    if (!run.running_tasks.empty()) {
        line << " tasks running then:";
        for (std::size_t i = 0; i < run.running_tasks.size() && i < 10; ++i) line << (i ? ", " : " ") << run.running_tasks[i];
        if (run.running_tasks.size() > 10) line << " and " << run.running_tasks.size() - 10 << " more";
        line << ";";
    }
    line << " --resume runs what did not finish";
    return line.str();
}

}  // namespace shardrun::io
