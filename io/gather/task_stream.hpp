#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/result_types.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io {

/**
 * @internal The final /tasks rows (and results) of the task ids [first, end), delivered in
 * blocks of consecutive ids, read from committed segments and single-layout files in memory
 * that does not grow with the task count: the master, the merge, the resume scan and the
 * summaries use it where they once held a row per task (io/README.md, "Memory at scale").
 *
 * A first pass reads only each segment's task ids (its span); the blocks then load a
 * segment, verified in full, when the first block that needs it starts, and drop it after
 * the last, so memory holds a block plus the segments whose spans overlap it. The winning
 * row of a task is the one TaskTable picks: ok is final, otherwise the latest end.
 */
class TaskStream {
public:
    /** What the stream reads of each segment: /tasks only, or the results too. */
    enum class Reads { rows_only, with_results };

    /**
     * @param fields  the job's fields; a segment whose fields differ is not used
     * @param reads  with_results: read (and CRC-check) results; rows_only: read and check /tasks only
     */
    TaskStream(std::uint64_t first, std::uint64_t end, std::vector<FieldSpec> fields, Reads reads);
    ~TaskStream();
    TaskStream(const TaskStream&) = delete;
    TaskStream& operator=(const TaskStream&) = delete;

    /** Adds the segments of element `array_index` (rows with id in [first, end)) and its single file. */
    void add_element(const std::string& path, int array_index, std::uint64_t first, std::uint64_t end);
    /** Adds a single-layout (or finished master) file whose row i is task i, for ids in [first, end). */
    void add_single(const std::filesystem::path& file, std::uint64_t first, std::uint64_t end);

    /**
     * Delivers only the fields at `kept` (indexes into the constructor's fields, in that
     * order) in block.fields; segments are still checked against all of them. For readers
     * that show a few fields of a job with large ones (`shardrun table` of a running job).
     * Call before the first next().
     */
    void select_fields(std::vector<std::size_t> kept);

    /**
     * Delivers the kept columns flagged here (indexes into the kept columns) by reference:
     * next() leaves their block.fields column empty and row_refs() points at each row's bytes
     * where they were loaded (nullptr: no result, the fill value), valid until the next
     * next(). The master copies large rows from there a chunk at a time (row_chunks.hpp)
     * instead of assembling the block. Call before the first next().
     */
    void reference_fields(std::vector<bool> by_reference);
    /** The rows of kept column `column` of the last block, by reference (reference_fields()). */
    const std::vector<const std::byte*>& row_refs(std::size_t column) const;

    /**
     * The next block: `block` gets the rows of ids [first_id(), first_id() + block.size()),
     * pending where nothing was committed, results (with_fields) as committed or the fill value.
     * @return false when every id was delivered
     */
    bool next(TaskRows& block);
    /** First task id of the block next() returned last. */
    std::uint64_t first_id() const noexcept { return block_first_; }

    /** Sources skipped as invalid, one line each (file: reason; consequence). */
    const std::vector<std::string>& problems() const noexcept;
    /** Segments that failed verification (the resume scan moves them aside). */
    const std::vector<std::filesystem::path>& invalid_segments() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t block_first_ = 0;
};

/**
 * Adds the committed rows of element `array_index` with id in [first, end): its segments and
 * single file and, when the element is `consolidated` (results stored once,
 * io/output/consolidation.hpp), the master <path>.
 */
void add_element_rows(TaskStream& stream, const std::string& path, int array_index, bool consolidated,
                      std::uint64_t first, std::uint64_t end);

/** Counts of the final statuses of the rows a stream delivered. */
struct StatusCounts {
    std::uint64_t ok = 0, failed = 0, skipped = 0, pending = 0;
    void add(const TaskRows& block);
};

/** Runs `stream` to its end and counts its rows' statuses. */
StatusCounts count_statuses(TaskStream& stream);

/**
 * Rows per block: SHARDRUN_STREAM_BLOCK_ROWS when set (tests make it small), else 65536;
 * a TaskStream with fields takes fewer when their bytes would pass block_bytes().
 */
std::size_t stream_block_rows();
/** The results a TaskStream block holds at most (unless one row alone is larger): 32 MiB. */
std::size_t block_bytes();

}  // namespace shardrun::io
