#include "runner/storage/remote_line_input.hpp"

#include <filesystem>
#include <iostream>

#include "runner/errors.hpp"
#include "runner/storage/object_reads.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/staged_input.hpp"

namespace shardrun::storage {

RemotePath remote_index_of(const RemotePath& input)
{
    auto index = parse_remote(io::line_index_path(input.url));
    if (!index) SHARDRUN_THROW(UsageError, "'" + input.url + "' is not in object storage");
    return *index;
}

void index_staged_copy(const RemotePath& input, const std::string& local, io::LineFormat format)
{
    const auto local_stamp = io::local_stamp(local);
    // The same version as at an earlier download (rclone left the copy as it was): indexed and stored then.
    if (io::load_line_index(io::line_index_path(local), local_stamp, format, true)) return;
    auto index = io::build_line_index(local, format, local_stamp);
    io::save_line_index(index, io::line_index_path(local));
    index.stamp = object_stamp(input);
    const auto upload = io::line_index_path(local) + ".bucket";
    if (!io::save_line_index(index, upload)) return;
    try {
        upload_file(upload, remote_index_of(input).rclone);
    } catch (const TransferError& error) {
        // A read-only bucket still runs: the next plan or run indexes the input again.
        std::cerr << "shardrun: note: cannot store the index beside " << input.url << " (" << error.what() << ")\n";
    }
    std::filesystem::remove(upload);
}

std::string stage_line_input(const RemotePath& input, io::LineFormat format)
{
    const auto local = stage_object(input, [&](const std::string& copy) { index_staged_copy(input, copy, format); });
    // Another launch's copy (same URL) may predate an index; the run reads it beside the copy.
    io::local_line_index(local, format);
    return local;
}

std::uint64_t remote_line_records(const RemotePath& input, io::LineFormat format)
{
    const auto stamp = object_stamp(input);
    try {
        // The whole index object: its header line says the count, and --count bounds nothing here.
        const auto bytes = read_object_range(remote_index_of(input), 0, std::uint64_t{1} << 40);
        if (const auto index = io::parse_line_index(bytes, stamp, format, true)) return index->records;
    } catch (const TransferError&) {
        // No index beside it yet: built below.
    }
    const auto local = stage_object(input, [&](const std::string& copy) { index_staged_copy(input, copy, format); });
    return io::local_line_index(local, format).records;
}

}  // namespace shardrun::storage
