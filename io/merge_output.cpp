// merge_output(): one master over the shards of every array element.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "io/element_manifest.hpp"
#include "io/job_output.hpp"
#include "io/master/master_file.hpp"
#include "io/output_layout.hpp"
#include "io/params_file.hpp"
#include "io/task_stream.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

struct Elements {
    std::vector<std::pair<int, ElementManifest>> present;
    const ElementManifest* reference = nullptr;  ///< a finished element to learn the job from
};

Elements read_elements(const std::string& path)
{
    Elements elements;
    for (const int index : layout::element_indexes(path)) {
        if (auto manifest = read_manifest(path, index)) elements.present.emplace_back(index, std::move(*manifest));
    }
    for (const auto& [index, manifest] : elements.present) {
        if (manifest.finished > 0 && fs::exists(layout::params_path(path, index))) {
            elements.reference = &manifest;
            break;
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
    for (const auto& [index, manifest] : elements.present) {
        info.created = std::min(info.created, manifest.created);
        info.metadata.world_size = std::max(info.metadata.world_size, manifest.metadata.world_size);
        for (const auto& host : manifest.metadata.hostnames) {
            if (std::find(info.metadata.hostnames.begin(), info.metadata.hostnames.end(), host) ==
                info.metadata.hostnames.end()) {
                info.metadata.hostnames.push_back(host);
            }
        }
    }
    read_params_file(layout::params_path(path, reference.metadata.array_index), reference.metadata.param_names,
                     info.params, info.ranges);
    return info;
}

}  // namespace

MergeReport merge_output(const std::string& path)
{
    const auto elements = read_elements(path);
    if (!elements.reference) {
        SHARDRUN_THROW(OutputError, "no array element of " + path + " has finished (nothing in " + layout::shards_dir(path).string() +
                                    " to learn the job from); run the array elements first");
    }
    auto info = merged_info(path, elements);
    MergeReport report;
    report.array_count = info.metadata.array_count;
    TaskStream stream(0, info.metadata.task_count, info.fields, true);  // copying verifies results
    std::vector<bool> seen(static_cast<std::size_t>(report.array_count), false);
    for (const auto& [index, manifest] : elements.present) {
        if (manifest.job_hash != info.hash) {
            SHARDRUN_THROW(OutputError, layout::element_dir(path, index).string() + " belongs to a different job (parameters hash " +
                                        manifest.job_hash.substr(0, 12) + "); rerun that element with --force");
        }
        if (index < report.array_count) seen[static_cast<std::size_t>(index)] = true;
        stream.add_element(path, index, manifest.metadata.first_task, manifest.metadata.end_task);
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
    info.complete = report.missing_elements.empty();  // and no task left pending, which the writer sees
    const auto counts = master::write_master_streamed(path, info, stream);
    for (const auto& problem : stream.problems()) std::cerr << "shardrun: warning: " << problem << "\n";
    auto& summary = report.summary;
    summary.ok = counts.ok;
    summary.failed = counts.failed;
    summary.skipped = counts.skipped;
    summary.pending = counts.pending;
    summary.complete = summary.pending == 0 && report.missing_elements.empty();
    summary.master_written = true;
    summary.master_path = path;
    return report;
}

}  // namespace shardrun::io
