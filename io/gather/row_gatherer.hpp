#pragma once

// @internal The core of the row gatherer, what its two front ends share: TaskStream (a block of
// ids at a time, io/gather/task_stream.hpp) and TaskTable (the whole table,
// io/gather/task_table.hpp) walk an element's committed sources in this one order, which decides
// the winner of a tie (the later source), open and check every source here, and record a source
// they skip in one form. Each front end keeps only what differs: when it reads a source's rows
// and where it keeps the winners (the pick itself is TaskRows::take_if_better()).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/result_types.hpp"
#include "io/shards/segment.hpp"

namespace shardrun::io {

/**
 * Calls `segment` for every committed segment of element `array_index`, rank folder by rank
 * folder and in commit order within one, then `single` for its single-layout file when it has one.
 */
void for_each_element_source(const std::string& path, int array_index,
                             const std::function<void(const std::filesystem::path&)>& segment,
                             const std::function<void(const std::filesystem::path&)>& single);

/**
 * Where a front end records the sources it skipped: a problem line each ("<file>: <why>; its
 * tasks are treated as not committed") and, for a segment, the file itself, which the resume
 * scan moves aside. The two vectors are the front end's own (its problems() and
 * invalid_segments()).
 */
struct SkippedSources {
    std::vector<std::string>& problems;
    std::vector<std::filesystem::path>& invalid_segments;
};

/**
 * The task ids of committed segment `file` (read_segment_span(), not verified yet), or nullopt
 * with the segment recorded in `skipped` when it cannot be opened as one.
 */
std::optional<shards::SegmentSpan> open_segment_span(const std::filesystem::path& file, SkippedSources skipped);

/**
 * Committed segment `file` read and verified (read_segment(), with `reading` as there) and,
 * when `job_fields` is given and not empty, its fields checked against them; or nullopt with
 * the segment recorded in `skipped`.
 */
std::optional<shards::Segment> open_segment(const std::filesystem::path& file, SkippedSources skipped,
                                            shards::SegmentReading reading, const std::vector<FieldSpec>* job_fields = nullptr);

/**
 * Opens single-layout file `file` and hands it and its /tasks row count to `use`. An HDF5 error
 * in either skips the file with a problem line in `skipped` (a single file is never moved aside,
 * so it is no invalid segment).
 */
/**
 * Throws OutputError (exit 2) unless the master `path` opens: it holds the only copy of the rows of
 * the consolidated elements (their shards were removed once it was complete), so a missing or torn
 * master is lost work, never "not committed" (which --resume would silently run again).
 */
void require_consolidated_master(const std::string& path);

void open_single(const std::filesystem::path& file, SkippedSources skipped,
                 const std::function<void(hdf5::File& file, std::uint64_t rows)>& use);

}  // namespace shardrun::io
