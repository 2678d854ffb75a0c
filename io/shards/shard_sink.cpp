#include "io/shards/shard_sink.hpp"

#include <algorithm>

#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::shards {
namespace {

/** Removes torn commits (temporaries) and returns the sequence number after the last segment. */
long next_sequence(const fs::path& dir)
{
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        if (entry.path().extension() == ".tmp") fs::remove(entry.path(), error);
    }
    const auto existing = layout::segments(dir);
    if (existing.empty()) return 0;
    return std::stol(existing.back().stem().string()) + 1;
}

}  // namespace

ShardSink::ShardSink(const OutputOptions& options, const JobMetadata& metadata, std::vector<FieldSpec> fields, int rank)
    : dir_(layout::rank_dir(options.path, metadata.array_index, rank)),
      fields_(std::move(fields)),
      auto_commit_bytes_(options.auto_commit_bytes)
{
    std::error_code error;
    fs::create_directories(dir_, error);
    if (error) {
        SHARDRUN_THROW(OutputError, "cannot create " + dir_.string() + ": " + error.message() + "; choose a writable output.path");
    }
    header_ = SegmentHeader{job_hash(metadata), metadata.array_index, rank, next_sequence(dir_)};
    buffer_.fields.resize(fields_.size());
}

SegmentWriter& ShardSink::writer()
{
    if (!writer_) writer_.emplace(layout::segment_path(dir_, header_.seq), fields_);
    return *writer_;
}

void ShardSink::record_locked(const TaskRecord& record, const TaskValues& values)
{
    check_values(record, values, fields_);
    auto& segment = writer();
    // Large rows go to the segment now, from the task's own buffer: their only copy (segment_writer.hpp).
    segment.write_row(buffer_.size(), values);
    if (buffer_.size() == 0) {
        // One allocation per batch: growing a 64 MiB buffer by doubling costs a copy of it.
        for (std::size_t f = 0; f < fields_.size(); ++f) {
            if (segment.per_row()[f]) continue;
            const auto rows = std::max<std::size_t>(1, auto_commit_bytes_ / std::max<std::size_t>(1, fields_[f].bytes()));
            buffer_.fields[f].reserve(std::min(rows, std::size_t{1} << 16) * fields_[f].bytes() + fields_[f].bytes());
        }
    }
    buffer_.append(record, values, fields_, &segment.per_row());
    for (const auto& field : fields_) buffered_bytes_ += field.bytes();
    // Bounds memory when the runner commits rarely; a commit is always safe to add.
    if (buffered_bytes_ >= auto_commit_bytes_) commit_locked();
}

void ShardSink::commit_locked()
{
    if (buffer_.size() == 0) return;
    try {
        writer().commit(header_, buffer_);
    } catch (...) {
        writer_.reset();  // its temp is gone: the next batch starts a new one
        throw;
    }
    writer_.reset();
    ++header_.seq;
    buffer_.clear();
    buffered_bytes_ = 0;
}

}  // namespace shardrun::io::shards
