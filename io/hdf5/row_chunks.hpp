#pragma once

#include <hdf5.h>

#include <cstdint>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/result_types.hpp"

/**
 * Large result rows stored one task row per HDF5 chunk, so that a row goes from a task's
 * buffer to a segment, and from a segment to the master, as one H5Dwrite_chunk: a single
 * pwrite of the bytes, no hyperslab selection, no type conversion, no batch buffer
 * (io/README.md, "Large rows"). Segment row i is chunk [i, 0, ...]; master row t is chunk
 * [t, 0, ...]: the chunks of both line up whatever the schedule put into a segment.
 * Unwritten chunks read as the fill value (HDF5 allocates chunks as they are written), so
 * rows without a result cost nothing. Small rows stay contiguous: a chunk per row would cost
 * more in the chunk index than the copy it saves.
 */
namespace shardrun::io::hdf5 {

/** Rows at least this large are stored a chunk per row (shards, master); smaller ones contiguous. */
inline constexpr std::size_t row_chunk_min_bytes = std::size_t{64} << 10;

/** Whether `spec` is stored a chunk per row: large rows, except fields over items (item_rows.hpp). */
bool chunked_per_row(const FieldSpec& spec) noexcept;

/**
 * Creation properties of a [T, ...] field stored a chunk per row: chunk [1, shape...], the
 * fill value NaN / minimum int, chunks allocated when written.
 */
PropList row_chunk_properties(const FieldSpec& spec);

/**
 * Creates <parent>/<spec.name> [capacity, shape...], extendible along axis 0 (a segment being
 * filled: set_row_count() trims it to the rows written at commit).
 */
Dataset create_row_chunked(hid_t parent, const FieldSpec& spec, std::size_t capacity);

/** Sets the row count (axis 0) of an extendible dataset. */
void set_row_count(hid_t dataset, const FieldSpec& spec, std::size_t rows);

/** Writes row `row` of a chunk-per-row dataset from `data` (spec.bytes()): one H5Dwrite_chunk. */
void write_row_chunk(hid_t dataset, const FieldSpec& spec, std::uint64_t row, const void* data);

/**
 * The checksum of a chunk-per-row field: CRC-32C over the lane_checksum() of each row in
 * order. It is computed a row at a time as rows are written, where the contiguous fields'
 * lane_checksum() of the whole column needs the batch in memory.
 */
std::uint32_t row_checksum_step(std::uint32_t crc, const void* row, std::size_t bytes) noexcept;

/** row_checksum_step() over the `rows` rows of `data`. */
std::uint32_t rows_checksum(const std::vector<std::byte>& data, std::size_t row_bytes) noexcept;

}  // namespace shardrun::io::hdf5
