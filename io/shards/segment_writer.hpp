#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/result_types.hpp"
#include "io/shards/segment.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::shards {

/**
 * @internal Writes one segment. Fields with large rows (hdf5::chunked_per_row) go to the
 * temp file as each task is recorded, one H5Dwrite_chunk from the task's own buffer: no
 * batch buffer holds them, so each payload byte is copied once, into the page cache, as a
 * raw write() would. The rest (the /tasks rows, small fields) is written at commit(), which
 * then closes, fsyncs and renames the temp as write_segment() always did: a kill at any
 * instant leaves a complete segment or a `.tmp` that the next sink deletes.
 */
class SegmentWriter {
public:
    SegmentWriter(std::filesystem::path target, std::vector<FieldSpec> fields);
    ~SegmentWriter();  ///< removes the temp when commit() did not publish it
    SegmentWriter(const SegmentWriter&) = delete;
    SegmentWriter& operator=(const SegmentWriter&) = delete;

    /** Which fields are written a chunk per row, by write_row(). */
    const std::vector<bool>& per_row() const noexcept { return per_row_; }
    bool any_per_row() const noexcept { return any_per_row_; }

    /**
     * Writes row `row`'s per-row fields from `values` (empty: the task did not succeed; its
     * rows read as the fill value), creating the temp file at the first row.
     * @throws WriteError (full disk, I/O error), the temp removed
     */
    void write_row(std::size_t row, const TaskValues& values);

    /**
     * Writes `rows` (their contiguous fields in rows.fields; a per-row field's column there
     * is written a chunk per row when write_row() did not) and publishes the segment.
     * @throws WriteError, the temp removed
     */
    void commit(const SegmentHeader& header, const TaskRows& rows);

private:
    void open();
    void write_chunk(std::size_t f, std::size_t row, const void* data);
    [[noreturn]] void fail(const std::string& cause);

    std::filesystem::path target_, temp_;
    std::vector<FieldSpec> fields_;
    std::vector<bool> per_row_;
    bool any_per_row_ = false;
    std::optional<hdf5::File> file_;
    std::vector<std::optional<hdf5::Dataset>> datasets_;  ///< per-row fields' datasets, once open
    std::vector<std::uint32_t> crcs_;                     ///< hdf5::row_checksum_step() so far, per field
    std::vector<std::size_t> written_;                    ///< rows written so far, per field
    std::size_t capacity_ = 0;                            ///< rows the per-row datasets have room for
    bool published_ = false;
};

/** Writes the body of a segment into the open `file`: /tasks rows, the contiguous fields, attributes, checksums. */
void write_segment_body(hid_t file, const SegmentHeader& header, const TaskRows& rows, const std::vector<FieldSpec>& fields,
                        const std::vector<std::optional<std::uint32_t>>& row_chunk_checksums);

}  // namespace shardrun::io::shards
