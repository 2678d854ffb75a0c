#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/task_rows/task_rows.hpp"

namespace shardrun::io {

struct SkippedSources;

/** @internal Where a committed row lives: a shard segment or a single-layout file. */
struct RowSource {
    std::filesystem::path file;
    bool single = false;  ///< single layout: row index == task id
    /** The segment's verified field data, kept while it fits a budget so the master need not read it again. */
    std::vector<std::vector<std::byte>> cached_fields;
};

/**
 * @internal The /tasks table of the task ids [first_id, first_id + rows.size()) of a job
 * (row i is task first_id + i), gathered from committed segments and single-layout files,
 * with the source of every row's results. The master needs the whole job (first_id 0);
 * one array element needs only its own block, so a huge job does not cost T rows there.
 * The row gatherer's whole-table front end; TaskStream (task_stream.hpp) is its bounded one:
 * both walk an element's sources, open and check them and record those skipped through the
 * gatherer's core (row_gatherer.hpp), and pick a task's row by TaskRows::take_if_better().
 */
struct TaskTable {
    std::uint64_t first_id = 0;
    TaskRows rows;                         ///< fields stay empty (results are copied later)
    std::vector<int> source_of;            ///< per task: index into sources, -1 when no result
    std::vector<std::uint32_t> row_of;     ///< per task: row inside that source
    std::vector<RowSource> sources;
    std::vector<FieldSpec> fields;         ///< as found in the sources
    std::vector<std::string> problems;     ///< segments skipped as invalid, one line each
    std::vector<std::filesystem::path> invalid_segments;
    /**
     * true (resume scan): every segment's results are read and their CRC checked now.
     * false (master): only while they fit the cache; the others are checked when copied.
     */
    bool verify_results = true;
    /** Bytes of segment results kept in memory for the master (the rest is read again). */
    std::size_t cache_budget = std::size_t{256} << 20;

    /** A table of `task_count` pending rows, the whole job. */
    explicit TaskTable(std::uint64_t task_count) : TaskTable(0, task_count) {}
    /** Pending rows for the task ids [first, end). */
    TaskTable(std::uint64_t first, std::uint64_t end);
    /** True when `id` has a row here. */
    bool covers(std::uint64_t id) const noexcept { return id >= first_id && id - first_id < rows.size(); }
    /** Adds every valid committed row of element `array_index` with id in [first, end). */
    void gather_element(const std::string& path, int array_index, std::uint64_t first, std::uint64_t end);
    /** Adds the rows of a single-layout file (its /tasks) with id in [first, end). */
    void gather_single(const std::filesystem::path& file, std::uint64_t first, std::uint64_t end);
    /** Turns the rows whose results live in `source` back into pending ones (their segment went bad). */
    void drop_source(int source, const std::string& why);
    /** Counts of the final status among the task ids [first, end). */
    std::uint64_t count(std::int8_t status, std::uint64_t first, std::uint64_t end) const;

private:
    std::size_t cached_bytes_ = 0;
    /** Where the gatherer's core records the sources skipped: problems and invalid_segments. */
    SkippedSources skipped();
    void take(const TaskRows& rows, std::size_t i, int source, std::uint32_t row);
};

}  // namespace shardrun::io
