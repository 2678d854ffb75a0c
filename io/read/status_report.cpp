// status_report(): the state of an output, from its shards (live) or its master, a block of rows at a time.
#include "io/read/status_report.hpp"
#include <algorithm>
#include <charconv>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "io/gather/task_stream.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/element_match.hpp"
#include "io/layout/output_layout.hpp"
#include "io/layout/stopped_note.hpp"
#include "io/read/live_snapshot.hpp"
#include "io/read/unfinished_run.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

constexpr auto ok = static_cast<std::int8_t>(TaskStatus::ok);
constexpr auto failed = static_cast<std::int8_t>(TaskStatus::failed);
constexpr auto skipped = static_cast<std::int8_t>(TaskStatus::skipped);

std::vector<std::string> tail_lines(const fs::path& file, std::size_t count)
{
    std::ifstream in(file);
    std::deque<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
        if (lines.size() > count) lines.pop_front();
    }
    return {lines.begin(), lines.end()};
}

/**
 * The per-attempt output files of a task folder and its members' folders (stdout.<k>,
 * stderr.<k>); the plain stdout and stderr (the latest attempt's) only where no numbered
 * one exists (a folder written before they were numbered, or a worker's log).
 */
std::vector<std::string> log_files(const fs::path& task_dir)
{
    std::vector<std::string> files;
    std::error_code error;
    std::vector<fs::path> folders{task_dir};
    for (const auto& entry : fs::directory_iterator(task_dir, error)) {
        if (entry.is_directory(error) && layout::is_member_dir(entry.path().filename().string())) {
            folders.push_back(entry.path());
        }
    }
    for (const auto& folder : folders) {
        std::vector<std::string> numbered, plain;
        for (const auto& entry : fs::directory_iterator(folder, error)) {
            const auto name = entry.path().filename().string();
            if (name == "stdout" || name == "stderr") plain.push_back(entry.path().string());
            if (name.rfind("stdout.", 0) == 0 || name.rfind("stderr.", 0) == 0) numbered.push_back(entry.path().string());
        }
        auto& chosen = numbered.empty() ? plain : numbered;
        files.insert(files.end(), chosen.begin(), chosen.end());
    }
    std::sort(files.begin(), files.end());
    return files;
}

/**
 * The group member a failed task's message names ("group member 2 failed", as the runner words
 * it when a member's failure fails the task everywhere), whose stderr holds the real error: the
 * leader's only has its follow-on one (a DDP leader's "connection closed by peer").
 */
std::optional<int> failed_member(const std::string& message)
{
    constexpr std::string_view words = "group member ";
    const auto at = message.find(words);
    if (at == std::string::npos) return std::nullopt;
    int member = 0;
    const char* first = message.data() + at + words.size();
    const auto [end, error] = std::from_chars(first, message.data() + message.size(), member);
    if (error != std::errc() || end == first || std::string_view(end, message.data() + message.size()).rfind(" failed", 0) != 0) {
        return std::nullopt;
    }
    return member;
}

/** "slurm SLURM_ARRAY_JOB_ID=4240 SLURM_JOB_ID=4242": what the status shows of a run's scheduler ids. */
std::string scheduler_line(const std::string& scheduler, const std::map<std::string, std::string>& ids)
{
    std::string line = scheduler;
    for (const auto& [name, value] : ids) line += " " + name + "=" + value;
    return line;
}

using PerRank = std::map<std::pair<int, int>, RankCounts>;
/** Per host: its counts and the (element, rank) pairs seen there. */
using PerHost = std::map<std::string, std::pair<HostCounts, std::set<std::pair<int, int>>>>;

/** Counts the final rows of `stream` (task ids of element `index`) a block at a time. */
void count_stream(StatusReport& report, TaskStream& stream, int index, PerRank& per_rank, PerHost& per_host,
                  std::size_t stderr_lines)
{
    TaskRows block;
    while (stream.next(block)) {
        for (std::size_t i = 0; i < block.size(); ++i) {
            const auto status = block.status[i];
            if (status != ok && status != failed && status != skipped) continue;
            auto& counts = per_rank[{index, block.rank[i]}];
            counts.array_index = index;
            counts.rank = block.rank[i];
            (status == ok ? counts.ok : status == failed ? counts.failed : counts.skipped) += 1;
            auto& [host, ranks] = per_host[block.host[i]];
            ranks.insert({index, block.rank[i]});
            if (status == ok) ++host.ok;
            if (status == failed) ++host.failed;
            if (block.end[i] >= block.start[i] && block.start[i] > 0) host.busy_seconds += block.end[i] - block.start[i];
            if (status != failed) continue;
            const auto id = block.task_id[i];
            const auto task_dir = layout::task_stderr_path(report.path, id).parent_path();
            auto stderr_path = task_dir / "stderr";
            if (const auto member = failed_member(block.message[i]); member && *member > 0) {
                stderr_path = layout::member_dir(task_dir, *member) / "stderr";
            }
            report.failed_tasks.push_back(FailedTask{id, index, block.rank[i], block.exit_code[i],
                                                     tail_lines(stderr_path, stderr_lines), block.message[i],
                                                     block.attempts[i], log_files(task_dir)});
        }
    }
}

void add_counts(StatusReport& report, const PerRank& per_rank, const PerHost& per_host)
{
    for (const auto& [name, counted] : per_host) {
        auto host = counted.first;
        host.host = name;
        host.ranks = static_cast<int>(counted.second.size());
        report.hosts.push_back(std::move(host));
    }
    for (const auto& [key, counts] : per_rank) {
        report.ranks.push_back(counts);
        report.ok += counts.ok;
        report.failed += counts.failed;
        report.skipped += counts.skipped;
    }
    report.pending = report.task_count - report.ok - report.failed - report.skipped;
}

StatusReport from_shards(const std::string& path, std::size_t stderr_lines)
{
    StatusReport report;
    report.path = path;
    auto manifests = read_element_manifests(path);
    if (manifests.empty()) SHARDRUN_THROW(OutputError, path + " has no readable array element in " + layout::shards_dir(path).string());
    report.task_count = manifests.front().second.metadata.task_count;
    report.array_count = manifests.front().second.metadata.array_count;
    // An element of another job or count is named, not counted: its rows are not this job's.
    for (auto& mismatch : mismatched_elements(manifests)) {
        report.mismatched_elements.push_back(mismatch.index);
        report.element_problems.push_back(std::move(mismatch.why));
    }
    const auto mismatched = [&](int index) {
        return std::find(report.mismatched_elements.begin(), report.mismatched_elements.end(), index) !=
               report.mismatched_elements.end();
    };
    PerRank per_rank;
    PerHost per_host;
    std::vector<bool> seen(static_cast<std::size_t>(report.array_count), false);
    for (const auto& [index, manifest] : manifests) {
        if (mismatched(index)) continue;
        if (index < report.array_count) seen[static_cast<std::size_t>(index)] = true;
        for (const auto& line : manifest.quarantined) {
            report.quarantined.push_back(report.array_count > 1 ? "element " + std::to_string(index) + ": " + line : line);
        }
        if (!manifest.metadata.scheduler_ids.empty()) {
            const auto line = scheduler_line(manifest.metadata.scheduler, manifest.metadata.scheduler_ids);
            report.scheduler.push_back(report.array_count > 1 ? "element " + std::to_string(index) + ": " + line : line);
        }
        const bool running = layout::lock_held(path, index);
        if (manifest.consolidated) report.consolidated_elements.push_back(index);
        if (running) {
            report.running_elements.push_back(index);
        } else if (manifest.finished == 0) {
            report.unfinished_elements.push_back(index);
            if (const auto run = unfinished_run(path, index)) {
                const auto line = unfinished_run_line(*run);
                report.unfinished_runs.push_back(report.array_count > 1 ? "element " + std::to_string(index) + ": " + line : line);
            }
        }
        // Its one file is open in the run's parallel writer: not read until the run ends (live_snapshot.hpp).
        if (running && manifest.layout == Layout::single) {
            report.unreadable.push_back(single_running_reason(path, index));
            continue;
        }
        const auto& m = manifest.metadata;
        const auto end = std::max(m.first_task, std::min(m.end_task, report.task_count));
        TaskStream stream(m.first_task, end, {}, TaskStream::Reads::rows_only);  // /tasks only, a block at a time
        // A finished single-layout job of one element lives at <path> itself.
        if (manifest.layout == Layout::single && m.array_count == 1 && !fs::exists(layout::single_path(path, index)) &&
            fs::exists(path)) {
            stream.add_single(path, m.first_task, end);
        } else {
            add_element_rows(stream, path, index, manifest.consolidated, m.first_task, end);
        }
        count_stream(report, stream, index, per_rank, per_host, stderr_lines);
        // A segment truncated or damaged after its commit: its tasks count as pending, and saying
        // which file is why is the only way a reader learns it (trial 41b: status was silent).
        // A running element's may be a segment consolidated meanwhile: not named.
        if (!running) {
            for (const auto& problem : stream.problems()) report.unreadable_segments.push_back(problem);
        }
    }
    for (int index = 0; index < report.array_count; ++index) {
        if (!seen[static_cast<std::size_t>(index)]) report.missing_elements.push_back(index);
    }
    // An element stopped before it wrote anything is missing too; its note says it did start (merge says the same).
    for (auto& [index, note] : stopped_notes(path)) {
        if (std::ranges::find(report.missing_elements, index) != report.missing_elements.end()) {
            report.stopped_elements.emplace(index, std::move(note));
        }
    }
    add_counts(report, per_rank, per_host);
    return report;
}

/** The master's task and array counts; OutputError when it cannot be opened. */
void read_master_counts(const std::string& path, StatusReport& report)
{
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        report.task_count = static_cast<std::uint64_t>(hdf5::read_int_attr(file.get(), "task_count").value_or(0));
        report.array_count = static_cast<int>(hdf5::read_int_attr(file.get(), "array_count").value_or(1));
        report.quarantined = hdf5::read_string_list_attr(file.get(), "quarantined");
        std::map<std::string, std::string> ids;
        for (const auto& name : hdf5::read_string_list_attr(file.get(), "scheduler_ids")) {
            ids[name] = hdf5::read_string_attr(file.get(), name).value_or("");
        }
        if (!ids.empty()) report.scheduler.push_back(scheduler_line(hdf5::read_string_attr(file.get(), "scheduler").value_or(""), ids));
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, path + " is not a readable shardrun results file (" + error.cause() + ")");
    }
}

StatusReport from_master(const std::string& path, std::size_t stderr_lines)
{
    StatusReport report;
    report.path = path;
    read_master_counts(path, report);
    TaskStream stream(0, report.task_count, {}, TaskStream::Reads::rows_only);
    stream.add_single(path, 0, report.task_count);
    PerRank per_rank;
    PerHost per_host;
    count_stream(report, stream, 0, per_rank, per_host, stderr_lines);
    add_counts(report, per_rank, per_host);
    return report;
}

}  // namespace

StatusReport status_report(const std::string& path, std::size_t stderr_lines)
{
    StatusReport report;
    const bool from_elements = !layout::element_indexes(path).empty();
    if (from_elements) {
        report = from_shards(path, stderr_lines);
    } else if (fs::exists(path)) {
        report = from_master(path, stderr_lines);
    } else {
        SHARDRUN_THROW(OutputError, "no output at " + path + " (neither the file nor " + layout::shards_dir(path).string() +
                                    " exists); check the path");
    }
    report.complete = report.pending == 0 && report.missing_elements.empty() && report.mismatched_elements.empty();
    // What users open is the master: every task committed is not complete while it is missing
    // (the run that committed them could not write it: a full disk) or torn or foreign.
    if (report.array_count == 1 && !fs::exists(path) && report.complete && !report.running()) {
        report.master_missing = true;
        report.complete = false;
    }
    // An array's results file is the merge's: until then no reader opens it, so `status OUT && use OUT` must not
    // pass. A merge of some elements (exit 1) left a file that lacks the later ones: merged only when every
    // element is in it (a complete merge marks them consolidated; trial 42).
    const bool every_element_merged =
        from_elements && report.consolidated_elements.size() >= static_cast<std::size_t>(report.array_count);
    if (report.array_count > 1 && report.complete && !report.running() && (!fs::exists(path) || (from_elements && !every_element_merged))) {
        report.unmerged = true;
        report.complete = false;
    }
    if (report.array_count == 1 && fs::exists(path)) {
        try {
            StatusReport master;
            read_master_counts(path, master);  // opening it is the check
        } catch (const OutputError& error) {
            report.master_problem = error.what();
            report.complete = false;
        }
    }
    return report;
}

bool output_running(const std::string& path)
{
    const auto indexes = layout::element_indexes(path);
    return std::any_of(indexes.begin(), indexes.end(), [&](int index) { return layout::lock_held(path, index); });
}

}  // namespace shardrun::io
