// merge_output(): one master over the shards of every array element.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>

#include "base/documented_error.hpp"
#include "io/gather/row_gatherer.hpp"
#include "io/gather/task_stream.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/job_output.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/element_match.hpp"
#include "io/layout/output_layout.hpp"
#include "io/layout/stopped_note.hpp"
#include "io/master/master_file.hpp"
#include "io/output/consolidation.hpp"
#include "io/params/file_param_source.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

struct Elements {
    std::vector<std::pair<int, ElementManifest>> present;
    const ElementManifest* reference = nullptr;  ///< a finished element to learn the job from
    fs::path params_file;                        ///< its params.h5, or the master once consolidated
    bool any_consolidated = false;
};

Elements read_elements(const std::string& path)
{
    Elements elements;
    elements.present = read_element_manifests(path);
    // Merging an element of another job or array count would mix its rows in: name it, merge nothing.
    if (const auto mismatches = mismatched_elements(elements.present); !mismatches.empty()) {
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#resume-mismatch",
                                  path + ": " + describe(mismatches) + "; nothing merged: rerun the element(s) with " +
                                  "this job and --array-count (--force), or delete their folders under " +
                                  layout::shards_dir(path).string());
    }
    for (const auto& [index, manifest] : elements.present) {
        elements.any_consolidated = elements.any_consolidated || manifest.consolidated;
        if (!elements.reference && manifest.finished > 0 && fs::exists(layout::params_path(path, index))) {
            elements.reference = &manifest;
            elements.params_file = layout::params_path(path, index);
        }
    }
    // A consolidated element's params.h5 went with its shards; the master holds the same columns.
    for (const auto& [index, manifest] : elements.present) {
        if (!elements.reference && manifest.finished > 0 && manifest.consolidated) {
            elements.reference = &manifest;
            elements.params_file = path;
        }
    }
    return elements;
}

master::MasterInfo merged_info(const std::string& path, const Elements& elements)
{
    const auto& reference = *elements.reference;
    master::MasterInfo info;
    info.metadata = reference.metadata;
    info.metadata.array_index = -1;  // the master covers every element
    info.metadata.hostnames.clear();
    info.hash = reference.job_hash;
    info.layout = reference.layout;
    info.created = reference.created;
    info.finished = now_seconds();
    info.fields = reference.fields;
    info.ranks = master::rank_rows(elements.present);
    for (const auto& [index, manifest] : elements.present) {
        info.created = std::min(info.created, manifest.created);
        info.metadata.world_size = std::max(info.metadata.world_size, manifest.metadata.world_size);
        for (const auto& line : manifest.quarantined) info.quarantined.push_back("element " + std::to_string(index) + ": " + line);
        info.gpus.insert(info.gpus.end(), manifest.gpus.begin(), manifest.gpus.end());  // rows name their element
        // The ids every element shares (the array job's); an element's own (its array task id) stay in its manifest.
        std::erase_if(info.metadata.scheduler_ids, [&](const auto& id) {
            const auto other = manifest.metadata.scheduler_ids.find(id.first);
            return other == manifest.metadata.scheduler_ids.end() || other->second != id.second;
        });
        for (const auto& host : manifest.metadata.hostnames) {
            if (std::find(info.metadata.hostnames.begin(), info.metadata.hostnames.end(), host) ==
                info.metadata.hostnames.end()) {
                info.metadata.hostnames.push_back(host);
            }
        }
    }
    return info;
}

/** The master's counts when it is complete and of job `hash`; nullopt otherwise. */
std::optional<StatusCounts> complete_master_counts(const std::string& path, const std::string& hash)
{
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const auto attr = [&](const char* name) { return hdf5::read_int_attr(file.get(), name).value_or(-1); };
        if (hdf5::read_string_attr(file.get(), "params_sha256") != hash ||
            hdf5::read_bool_attr(file.get(), "complete") != true || attr("tasks_ok") < 0 || attr("tasks_failed") < 0 || attr("tasks_skipped") < 0) {
            return std::nullopt;
        }
        StatusCounts counts;
        counts.ok = static_cast<std::uint64_t>(attr("tasks_ok"));
        counts.failed = static_cast<std::uint64_t>(attr("tasks_failed"));
        counts.skipped = static_cast<std::uint64_t>(attr("tasks_skipped"));
        return counts;
    } catch (const Hdf5Error&) {
        return std::nullopt;
    }
}

/** Consolidated elements' results live only in the master: merging without it would lose them. */
void check_master_readable(const std::string& path, const Elements& elements)
{
    if (elements.any_consolidated) require_consolidated_master(path);
}

/** Marks every element consolidated into the complete master just published, then drops its rows. */
void drop_consolidated(const std::string& path, Elements& elements)
{
    for (auto& [index, manifest] : elements.present) {
        if (!manifest.consolidated) {
            manifest.consolidated = true;
            write_manifest(path, manifest);  // durably, before the first of its files goes
        }
        drop_element_rows(path, index);
    }
}

}  // namespace

MergeReport merge_output(const std::string& path)
{
    auto elements = read_elements(path);
    if (!elements.reference) {
        // Name what is there (a whole-array scancel leaves elements started and none finished).
        std::set<int> indexes;
        for (const auto& [index, manifest] : elements.present) indexes.insert(index);
        // An element stopped before it wrote anything left only its note: started, all the same.
        for (const auto& [index, note] : stopped_notes(path)) indexes.insert(index);
        std::string started;
        for (const int index : indexes) started += (started.empty() ? "" : ", ") + std::to_string(index);
        // An unfinished element's manifest knows the array's size: the ones never started are named too (trial 41a).
        std::string never;
        if (!elements.present.empty()) {
            for (int index = 0; index < elements.present.begin()->second.metadata.array_count; ++index) {
                if (!indexes.contains(index)) never += (never.empty() ? "" : ", ") + std::to_string(index);
            }
        }
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#not-merged",
                                  "no array element of " + path + " has finished (nothing in " + layout::shards_dir(path).string() +
                                  " to learn the job from); " +
                                  (started.empty() ? std::string("none has started: run the array elements first")
                                                   : "started but not finished: " + started +
                                                         "; rerun them with --resume (each element: --array-index N)" +
                                                         (never.empty() ? "" : "; never started: " + never + ", run them") +
                                                         ", then merge"));
    }
    check_master_readable(path, elements);
    auto info = merged_info(path, elements);
    const FileParamSource params(elements.params_file, elements.reference->metadata.param_names);
    info.param_source = &params;
    MergeReport report;
    report.array_count = info.metadata.array_count;
    report.merged_elements = static_cast<int>(elements.present.size());
    TaskStream stream(0, info.metadata.task_count, info.fields, TaskStream::Reads::with_results);  // copying verifies results
    std::vector<bool> seen(static_cast<std::size_t>(report.array_count), false);
    for (const auto& [index, manifest] : elements.present) {
        if (index < report.array_count) seen[static_cast<std::size_t>(index)] = true;
        add_element_rows(stream, path, index, manifest.consolidated, manifest.metadata.first_task,
                         manifest.metadata.end_task);
        // A finished single-layout job of one element was renamed to the output itself: its
        // rows are there, not under .shards (rewriting the master without them lost them all).
        if (manifest.layout == Layout::single && !fs::exists(layout::single_path(path, index)) && fs::exists(path)) {
            stream.add_single(path, manifest.metadata.first_task, manifest.metadata.end_task);
        }
        if (manifest.finished == 0 || !manifest.complete || layout::lock_held(path, index)) {
            report.incomplete_elements.push_back(index);
        }
    }
    for (int index = 0; index < report.array_count; ++index) {
        if (!seen[static_cast<std::size_t>(index)]) report.missing_elements.push_back(index);
    }
    // Everything is in a complete master already: nothing to do, and the master stays as it is.
    const bool all_dropped = std::all_of(elements.present.begin(), elements.present.end(), [&](const auto& element) {
        return element.second.consolidated && element_rows_dropped(path, element.first);
    });
    const auto kept = all_dropped && report.missing_elements.empty() && report.incomplete_elements.empty()
                          ? complete_master_counts(path, info.hash)
                          : std::nullopt;
    info.complete = report.missing_elements.empty();  // and no task left pending, which the writer sees
    const auto counts = kept ? *kept : master::write_master_streamed(path, info, stream, "rerun shardrun merge");
    for (const auto& problem : stream.problems()) std::cerr << "shardrun: warning: " << problem << "\n";
    auto& summary = report.summary;
    summary.ok = counts.ok;
    summary.failed = counts.failed;
    summary.skipped = counts.skipped;
    summary.pending = counts.pending;
    summary.complete = summary.pending == 0 && report.missing_elements.empty();
    summary.master_written = true;
    summary.master_path = path;
    // One single-layout element became the master itself: nothing is stored twice there.
    const bool one_single = info.layout == Layout::single && report.array_count == 1;
    if (report.exit_code() == 0 && !one_single) drop_consolidated(path, elements);
    return report;
}

}  // namespace shardrun::io
