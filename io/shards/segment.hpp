#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::shards {

/**
 * @internal One committed batch of one rank: a small, self-describing HDF5 file
 * <path>.shards/a<index>/r<rank>/<seq>.h5 holding /tasks columns, /results/<field> [n, ...]
 * and a CRC-32C of all of it. Written to <seq>.h5.tmp, fsynced, then renamed: a segment
 * that has its final name is complete.
 */
struct SegmentHeader {
    std::string job_hash;
    int array_index = 0;
    int rank = 0;
    long seq = 0;
};

/**
 * Writes `rows` as segment `target` (temp, fsync, rename, fsync of the folder).
 * @throws OutputError when the disk is full or the file cannot be written; the temp is removed
 */
void write_segment(const std::filesystem::path& target, const SegmentHeader& header, const TaskRows& rows,
                   const std::vector<FieldSpec>& fields);

/**
 * @internal Test hook: called by write_segment() at "temp_written" (closed and fsynced,
 * not yet renamed) and "renamed". Tests use it to kill the process at those instants.
 */
extern void (*segment_commit_hook)(const char* stage);

class MappedFile;

/** A segment read back and verified. */
struct Segment {
    SegmentHeader header;
    std::vector<FieldSpec> fields;
    TaskRows rows;  ///< rows.fields empty when read without fields
    /** With map_rows: per field, each row's bytes in `mapping` (chunk-per-row fields; their rows.fields column is empty). */
    std::vector<std::vector<const std::byte*>> mapped_rows;
    std::shared_ptr<MappedFile> mapping;  ///< the mapped file the pointers point into

    /** The bytes of row `i` of field `f`, mapped or read. */
    const std::byte* row(std::size_t f, std::size_t i) const
    {
        if (f < mapped_rows.size() && !mapped_rows[f].empty()) return mapped_rows[f][i];
        return rows.fields[f].data() + i * fields[f].bytes();
    }
};

/** What read_segment() reads besides the /tasks columns: read_segment(file, &why, {.results = false}). */
struct SegmentReading {
    bool results = true;    ///< read the results and check their CRC-32C
    bool map_rows = false;  ///< map fields stored a chunk per row (segment_mapping.hpp) instead of reading them
};

/**
 * Reads and verifies a segment: opens it (HDF5 rejects a truncated file), checks its
 * structure, lengths and the CRC-32C of the /tasks columns, and the results as `reading`
 * says. Mapped rows are found by Segment::row().
 * @param why  set to the reason when the segment is not valid
 * @return nullopt when truncated, corrupt or otherwise invalid
 */
std::optional<Segment> read_segment(const std::filesystem::path& file, std::string* why, SegmentReading reading = {});

/** The smallest and largest task id of a segment and its row count: what a streamed master orders segments by. */
struct SegmentSpan {
    std::uint64_t first_id = 0;
    std::uint64_t last_id = 0;
    std::size_t rows = 0;
};

/**
 * Reads only the task ids of a segment (8 bytes a row, no verification: read_segment()
 * verifies it when its rows are used).
 * @return nullopt, with `why` set, when the file cannot be opened as a segment
 */
std::optional<SegmentSpan> read_segment_span(const std::filesystem::path& file, std::string* why);

}  // namespace shardrun::io::shards
