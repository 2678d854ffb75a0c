#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/communicator.hpp"
#include "io/result_types.hpp"

namespace shardrun::io::single {

/**
 * @internal How the ranks of a single-layout file write together: the collective transfer
 * property list, and the communicator on which they agree that each write succeeded.
 */
struct Collective {
    hid_t transfer;
    base::Communicator& comm;
};

/**
 * @internal Checks a collective HDF5 call on every rank: it throws on every rank when it failed
 * on any. A failure seen by one rank alone (its share of the write met a full disk) would
 * otherwise send that rank to close the file while the others enter the next collective
 * write: both wait forever.
 */
void agree(const Collective& collective, herr_t status, const char* call);

/** @internal Copies rows (each `row_bytes` long) of `data` in the order `order` into `out`. */
void gather_rows(const std::vector<std::byte>& data, std::size_t row_bytes, const std::vector<std::size_t>& order,
                 std::vector<std::byte>& out);

/**
 * @internal Writes rows to the task ids ids[order[0]], ids[order[1]], ... (ascending) of a
 * [T, row_shape...] dataset: one hyperslab per run of consecutive ids, one collective
 * H5Dwrite. A rank without rows selects nothing and still takes part.
 */
void write_rows(hid_t dataset, hid_t memory_type, const std::vector<hsize_t>& row_shape,
                const std::vector<std::uint64_t>& ids, const std::vector<std::size_t>& order, const void* data,
                const Collective& transfer);

/** The same for a field: memory type and row shape from `spec`. */
void write_rows(hid_t dataset, const FieldSpec& spec, const std::vector<std::uint64_t>& ids,
                const std::vector<std::size_t>& order, const void* data, const Collective& transfer);

}  // namespace shardrun::io::single
