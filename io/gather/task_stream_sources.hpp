#pragma once

// @internal The sources a TaskStream reads (io/gather/task_stream.hpp): committed segments, known
// first by their span of ids and loaded (verified whole) only while a block needs them, and
// single-layout files. task_stream_sources.cpp finds and loads them, through the gatherer's core
// (row_gatherer.hpp); task_stream.cpp merges their rows into blocks.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/gather/row_gatherer.hpp"
#include "io/gather/task_stream.hpp"
#include "io/hdf5/handle.hpp"
#include "io/shards/segment.hpp"
#include "io/task_rows/item_rows.hpp"

namespace shardrun::io {
namespace stream {

struct SegmentRef {
    std::filesystem::path file;
    shards::SegmentSpan span;
    std::uint64_t lo, hi;  ///< ids of its element
    std::size_t ordinal;   ///< order of discovery: on a tie the later source wins, as in TaskTable
};

/** A verified segment in use, with its rows in id order. */
struct Loaded {
    shards::Segment segment;
    std::vector<std::uint32_t> order;
    std::size_t cursor = 0;
    std::uint64_t lo, hi;
    std::size_t ordinal;
};

struct SingleRef {
    std::filesystem::path file;
    std::uint64_t lo, hi;
    std::size_t ordinal;
    std::optional<hdf5::File> handle;
    std::unique_ptr<master::ItemRowsReader> items;  ///< of `handle`, made with it
};

/**
 * Rows [first, first + n) of a single-layout file's /tasks (and /results). A master's fields
 * over items come back per task through `items`, padded as the shards held them.
 */
TaskRows read_single_rows(hid_t file, master::ItemRowsReader& items, std::uint64_t first, std::size_t n,
                          const std::vector<FieldSpec>& fields, const std::vector<bool>& wanted, bool with_fields);

}  // namespace stream

struct TaskStream::Impl {
    std::uint64_t first = 0, end = 0, cursor = 0;
    std::vector<FieldSpec> fields;
    std::vector<std::size_t> kept;  ///< the fields delivered (select_fields), indexes into `fields`
    std::vector<bool> by_reference;  ///< per kept column: delivered through refs (reference_fields)
    std::vector<std::vector<const std::byte*>> refs;  ///< per kept column, the last block's rows
    std::list<TaskRows> single_rows;  ///< the last block's rows read from single files (refs point there)
    bool with_fields = true;
    std::size_t block_rows = stream_block_rows();
    std::vector<stream::SegmentRef> segments;
    bool sorted = false;
    std::size_t next_segment = 0;
    std::list<stream::Loaded> active;
    std::vector<stream::SingleRef> singles;
    std::size_t sources = 0;
    std::vector<std::string> problems;
    std::vector<std::filesystem::path> invalid;

    /** Loads and verifies a segment into the active set (kept in discovery order), or records why not. */
    void load(const stream::SegmentRef& ref);
    /** Where the gatherer's core (row_gatherer.hpp) records the sources skipped. */
    SkippedSources skipped() { return SkippedSources{problems, invalid}; }
};

}  // namespace shardrun::io
