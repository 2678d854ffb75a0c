// The resume scan: which tasks are committed, in memory that does not grow with the task count.
#include "io/output/resume_scan.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <iostream>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {

std::string segments_digest(const std::string& path, int array_index)
{
    std::string listing;
    for (const int rank : layout::rank_indexes(path, array_index)) {
        for (const auto& file : layout::segments(layout::rank_dir(path, array_index, rank))) {
            struct stat info {};
            if (::stat(file.c_str(), &info) != 0) continue;
            listing += file.filename().string() + '@' + std::to_string(rank) + ' ' + std::to_string(info.st_ino) + ' ' +
                       std::to_string(info.st_size) + ' ' + std::to_string(info.st_mtim.tv_sec) + '.' +
                       std::to_string(info.st_mtim.tv_nsec) + ' ' + std::to_string(info.st_ctim.tv_sec) + '.' +
                       std::to_string(info.st_ctim.tv_nsec) + '\n';
        }
    }
    return sha256_hex(listing);
}

namespace {

bool element_consolidated(const std::string& path, int array_index)
{
    try {
        const auto manifest = read_manifest(path, array_index);
        return manifest && manifest->consolidated;
    } catch (const OutputError&) {
        return false;
    }
}

}  // namespace

std::optional<StatusCounts> current_master_counts(const OutputOptions& options, const JobMetadata& metadata)
{
    if (options.layout != Layout::shards || metadata.array_count != 1 || !fs::exists(options.path)) return std::nullopt;
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const auto attr = [&](const char* name) { return hdf5::read_int_attr(file.get(), name); };
        if (hdf5::read_string_attr(file.get(), "params_sha256") != job_hash(metadata) ||
            attr("task_count") != static_cast<std::int64_t>(metadata.task_count) ||
            hdf5::read_bool_attr(file.get(), "complete") != true) {
            return std::nullopt;
        }
        // Once consolidated, its segments are removed: no segment left means none was added since.
        const auto digest = segments_digest(options.path, metadata.array_index);
        if (hdf5::read_string_attr(file.get(), "segments_digest") != digest &&
            !(digest == sha256_hex("") && element_consolidated(options.path, metadata.array_index))) {
            return std::nullopt;
        }
        const auto ok = attr("tasks_ok"), failed = attr("tasks_failed"), skipped = attr("tasks_skipped");
        if (!ok || !failed || !skipped) return std::nullopt;
        StatusCounts counts;
        counts.ok = static_cast<std::uint64_t>(*ok);
        counts.failed = static_cast<std::uint64_t>(*failed);
        counts.skipped = static_cast<std::uint64_t>(*skipped);
        if (counts.ok + counts.failed + counts.skipped != metadata.task_count) return std::nullopt;
        return counts;
    } catch (const Hdf5Error&) {
        return std::nullopt;
    }
}

}  // namespace shardrun::io
