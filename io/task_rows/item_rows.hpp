#pragma once

#include "io/item_ids.hpp"

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/result_types.hpp"

/**
 * @file
 * Fields whose first axis is a data chunk's rows (FieldSpec::item_rows, `rows` in the job
 * file). Shards and a running single file keep them padded, [T, chunk, ...], so every
 * task's values have one size; the finished master holds them as one array over the data's
 * items, [N, ...], where N is the sum of every task's rows (end - start of /ranges) and
 * task t's rows lie at the sum of the rows of the tasks before it (for a data job without a
 * sweep: at its range start). A short last chunk takes only its own rows.
 */
namespace shardrun::io::master {

/** Memory bounds of the conversion (tests lower them to reach the block-wise path). */
struct ItemRowsBudget {
    /**
     * A field of at most this many bytes is read whole before its old dataset is deleted,
     * so HDF5 reuses the freed storage for the new one and the file keeps no padded copy.
     * Larger fields are copied in blocks; the file then keeps a hole of the padded size
     * (h5repack reclaims it).
     */
    std::size_t whole_bytes = std::size_t{256} << 20;
    std::size_t block_bytes = std::size_t{64} << 20;  ///< per block of the block-wise copy
};

/**
 * Turns each item_rows field of `fields` in /results from [T, chunk, ...] into [N, ...],
 * with the bare dimensions `item` (axis 0) and `<field>_dim<k>` (axis k), `_FillValue`,
 * `units` and the attribute `item_chunk` (the chunk, also what marks it assembled).
 * Needs /ranges; call it before write_dimensions(). Idempotent.
 * With `ids` (data.id), the `item` dimension is a coordinate variable holding each item's id
 * (int64 or strings), so xarray indexes the rows by id.
 */
void assemble_item_rows(hid_t file, const std::vector<FieldSpec>& fields, const ItemRowsBudget& budget = {},
                        const ItemIds* ids = nullptr);

/**
 * Reads an assembled field (marked `item_chunk`) back task by task, padded as the shards held
 * it: what lets the master alone serve --resume, merge and status once the shards are gone.
 * Cheapest when tasks are read in increasing order: it keeps the item offset where the last
 * read ended, so reading every task once reads /ranges once.
 */
class ItemRowsReader {
public:
    explicit ItemRowsReader(hid_t file) : file_(file) {}
    ItemRowsReader(const ItemRowsReader&) = delete;
    ItemRowsReader& operator=(const ItemRowsReader&) = delete;

    /** True when `dataset` holds a field assembled over items. */
    static bool assembled(hid_t dataset);

    /**
     * Tasks [first, first + count) of the assembled `dataset` as `count` values of `padded`
     * ([chunk, ...]): each task's rows, then the fill value after a short chunk.
     */
    std::vector<std::byte> read(hid_t dataset, const FieldSpec& padded, std::uint64_t first, std::size_t count);

private:
    /** Item offset of task `task`'s first row; the rows of a task are min(chunk, end - start). */
    std::uint64_t offset_of(std::uint64_t task, std::uint64_t chunk);
    /** Each task's rows for tasks [first, first + count). */
    std::vector<std::uint64_t> task_rows(std::uint64_t first, std::size_t count, std::uint64_t chunk) const;

    hid_t file_;
    std::uint64_t task_ = 0, offset_ = 0, chunk_ = 0;  ///< task_'s rows start at item offset_
};

/**
 * The reverse, from the file alone (datasets marked `item_chunk`): back to [T, chunk, ...],
 * padded with the fill value, for --resume of a finished single-layout file.
 */
void split_item_rows(hid_t file, const ItemRowsBudget& budget = {});

}  // namespace shardrun::io::master
