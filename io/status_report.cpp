// status_report(): the state of an output, from its shards (live) or its master.
#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>

#include "io/element_manifest.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/job_output.hpp"
#include "io/output_layout.hpp"
#include "io/task_table.hpp"

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

/** Element of each task id; 0 when unknown (a master without shards). */
struct ElementRange {
    int index;
    std::uint64_t first, end;
};

void count_rows(StatusReport& report, const TaskTable& table, const std::vector<ElementRange>& ranges,
                std::size_t stderr_lines)
{
    std::map<std::pair<int, int>, RankCounts> per_rank;
    for (const auto& range : ranges) {
        for (auto id = range.first; id < range.end && id < table.rows.size(); ++id) {
            const auto status = table.rows.status[id];
            if (status != ok && status != failed && status != skipped) continue;
            auto& counts = per_rank[{range.index, table.rows.rank[id]}];
            counts.array_index = range.index;
            counts.rank = table.rows.rank[id];
            (status == ok ? counts.ok : status == failed ? counts.failed : counts.skipped) += 1;
            if (status != failed) continue;
            report.failed_tasks.push_back(FailedTask{id, range.index, table.rows.rank[id], table.rows.exit_code[id],
                                                     tail_lines(layout::task_stderr_path(report.path, id), stderr_lines)});
        }
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
    std::vector<ElementRange> ranges;
    std::vector<std::pair<int, ElementManifest>> manifests;
    for (const int index : layout::element_indexes(path)) {
        if (auto manifest = read_manifest(path, index)) manifests.emplace_back(index, std::move(*manifest));
    }
    if (manifests.empty()) SHARDRUN_THROW(OutputError, path + " has no readable array element in " + layout::shards_dir(path).string());
    report.task_count = manifests.front().second.metadata.task_count;
    report.array_count = manifests.front().second.metadata.array_count;
    TaskTable table(report.task_count);
    std::vector<bool> seen(static_cast<std::size_t>(report.array_count), false);
    for (const auto& [index, manifest] : manifests) {
        if (index < report.array_count) seen[static_cast<std::size_t>(index)] = true;
        const auto& m = manifest.metadata;
        // A finished single-layout job of one element lives at <path> itself.
        if (manifest.layout == Layout::single && m.array_count == 1 && !fs::exists(layout::single_path(path, index)) &&
            fs::exists(path)) {
            table.gather_single(path, m.first_task, m.end_task);
        } else {
            table.gather_element(path, index, m.first_task, m.end_task);
        }
        ranges.push_back(ElementRange{index, m.first_task, m.end_task});
        if (layout::lock_held(path, index)) {
            report.running_elements.push_back(index);
        } else if (manifest.finished == 0) {
            report.unfinished_elements.push_back(index);
        }
    }
    for (int index = 0; index < report.array_count; ++index) {
        if (!seen[static_cast<std::size_t>(index)]) report.missing_elements.push_back(index);
    }
    count_rows(report, table, ranges, stderr_lines);
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
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, path + " is not a readable shardrun results file (" + error.cause() + ")");
    }
}

StatusReport from_master(const std::string& path, std::size_t stderr_lines)
{
    StatusReport report;
    report.path = path;
    read_master_counts(path, report);
    TaskTable table(report.task_count);
    table.gather_single(path, 0, report.task_count);
    count_rows(report, table, {ElementRange{0, 0, report.task_count}}, stderr_lines);
    return report;
}

}  // namespace

StatusReport status_report(const std::string& path, std::size_t stderr_lines)
{
    StatusReport report;
    if (!layout::element_indexes(path).empty()) {
        report = from_shards(path, stderr_lines);
    } else if (fs::exists(path)) {
        report = from_master(path, stderr_lines);
    } else {
        SHARDRUN_THROW(OutputError, "no output at " + path + " (neither the file nor " + layout::shards_dir(path).string() +
                                    " exists); check the path");
    }
    report.complete = report.pending == 0 && report.missing_elements.empty();
    // What users open is the master: the shards may be complete while it is torn or foreign.
    if (report.array_count == 1 && fs::exists(path)) {
        try {
            StatusReport master;
            read_master_counts(path, master);  // opening it is the check; its rows were counted from the shards
        } catch (const OutputError& error) {
            report.master_problem = error.what();
            report.complete = false;
        }
    }
    return report;
}

}  // namespace shardrun::io
