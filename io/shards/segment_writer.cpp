// One segment written: large rows a chunk at a time as tasks are recorded, the rest at commit
// (segment_writer.hpp).
#include "io/shards/segment_writer.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/checksum/checksum.hpp"
#include "io/errors.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/row_chunks.hpp"
#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::shards {

SegmentWriter::SegmentWriter(fs::path target, std::vector<FieldSpec> fields)
    : target_(std::move(target)), temp_(target_.string() + ".tmp"), fields_(std::move(fields))
{
    for (const auto& field : fields_) {
        per_row_.push_back(hdf5::chunked_per_row(field));
        any_per_row_ = any_per_row_ || per_row_.back();
    }
    datasets_.resize(fields_.size());
    crcs_.assign(fields_.size(), 0);
    written_.assign(fields_.size(), 0);
}

SegmentWriter::~SegmentWriter()
{
    if (published_ || !file_) return;
    file_.reset();
    std::remove(temp_.c_str());
}

void SegmentWriter::fail(const std::string& cause)
{
    for (auto& dataset : datasets_) dataset.reset();
    file_.reset();  // closes quietly (file_close.hpp): the temp is removed next
    std::remove(temp_.c_str());
    SHARDRUN_THROW(WriteError, "cannot commit results to " + temp_.string() + ": " + cause +
                               "; free disk space (or raise the file size limit) and rerun with --resume");
}

void SegmentWriter::open()
{
    hdf5::silence_hdf5_errors();
    layout::clear_for_create(temp_);
    auto fapl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_FILE_ACCESS));
    // Large result blocks start on a page boundary: whole-page writes for the page cache and disk.
    SHARDRUN_H5_CHECK(H5Pset_alignment(fapl.get(), 64 * 1024, 4096));
    file_ = SHARDRUN_H5_OPEN(File, H5Fcreate(temp_.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
    if (!any_per_row_) return;
    auto results = hdf5::ensure_group(file_->get(), "results");
    capacity_ = 64;  // doubled as rows come: H5Dset_extent of a chunked dataset moves no data
    for (std::size_t f = 0; f < fields_.size(); ++f) {
        if (per_row_[f]) datasets_[f] = hdf5::create_row_chunked(results.get(), fields_[f], capacity_);
    }
}

void SegmentWriter::write_chunk(std::size_t f, std::size_t row, const void* data)
{
    if (row != written_[f]) SHARDRUN_THROW(Hdf5Error, "segment rows written out of order");
    if (row >= capacity_) {
        capacity_ = std::max(capacity_ * 2, row + 1);
        for (std::size_t g = 0; g < fields_.size(); ++g) {
            if (datasets_[g]) hdf5::set_row_count(datasets_[g]->get(), fields_[g], capacity_);
        }
    }
    const auto bytes = fields_[f].bytes();
    if (data != nullptr) {
        hdf5::write_row_chunk(datasets_[f]->get(), fields_[f], row, data);
        crcs_[f] = hdf5::row_checksum_step(crcs_[f], data, bytes);
    } else {
        // Not written: the row reads as the fill value, which the checksum covers.
        std::vector<std::byte> fill;
        append_fill(fill, fields_[f], 1);
        crcs_[f] = hdf5::row_checksum_step(crcs_[f], fill.data(), bytes);
    }
    ++written_[f];
}

void SegmentWriter::write_row(std::size_t row, const TaskValues& values)
{
    if (!any_per_row_) return;
    try {
        if (!file_) open();
        for (std::size_t f = 0; f < fields_.size(); ++f) {
            if (per_row_[f]) write_chunk(f, row, values.empty() ? nullptr : values[f].data());
        }
    } catch (const Hdf5Error& error) {
        fail(error.cause());
    }
}

void SegmentWriter::commit(const SegmentHeader& header, const TaskRows& rows)
{
    const auto n = rows.size();
    try {
        if (!file_) open();
        std::vector<std::optional<std::uint32_t>> row_checksums(fields_.size());
        for (std::size_t f = 0; f < fields_.size(); ++f) {
            if (!per_row_[f]) continue;
            const auto bytes = fields_[f].bytes();
            // write_segment() of rows held in memory: their chunks are written now.
            if (f < rows.fields.size() && rows.fields[f].size() == n * bytes) {
                for (auto row = written_[f]; row < n; ++row) write_chunk(f, row, rows.fields[f].data() + row * bytes);
            }
            if (written_[f] != n) SHARDRUN_THROW(Hdf5Error, "field '" + fields_[f].name + "' has the wrong number of rows");
            hdf5::set_row_count(datasets_[f]->get(), fields_[f], n);
            row_checksums[f] = crcs_[f];
        }
        for (auto& dataset : datasets_) dataset.reset();
        write_segment_body(file_->get(), header, rows, fields_, row_checksums);
        file_->close();  // flushes: a full disk shows up here at the latest
        file_.reset();
        if (!layout::sync_path(temp_)) SHARDRUN_THROW(Hdf5Error, "fsync failed: " + std::string(std::strerror(errno)));
    } catch (const Hdf5Error& error) {
        fail(error.cause());
    }
    published_ = true;  // from here the temp is the caller's: a failed rename leaves it for the next sink
    if (segment_commit_hook) segment_commit_hook("temp_written");
    if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
        SHARDRUN_THROW(WriteError, "cannot rename " + temp_.string() + ": " + std::strerror(errno) + "; rerun with --resume");
    }
    layout::sync_path(target_.parent_path());
    if (segment_commit_hook) segment_commit_hook("renamed");
}

}  // namespace shardrun::io::shards
