#pragma once

#include <hdf5.h>

#include <cstddef>
#include <filesystem>
#include <memory>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::io::shards {

/**
 * @internal A segment file mapped read-only (mmap), so that its large rows (a chunk per row,
 * hdf5/row_chunks.hpp) are checksummed and copied into the master where the page cache holds
 * them: no read() into a buffer, no fresh 64 MiB allocation per segment (their page faults and
 * zeroing cost as much as the copy). Unmapped when the last holder lets go.
 */
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& file);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    /** One row of the fill value of `spec`, kept as long as the mapping (rows never written point here). */
    const std::byte* fill_row(const FieldSpec& spec);

private:
    const std::byte* data_ = nullptr;
    std::size_t size_ = 0;
    std::vector<std::vector<std::byte>> fills_;
};

/**
 * Where each of the `rows` rows of the chunk-per-row dataset `dataset` lies in `file` (the
 * segment the dataset belongs to, mapped): its chunk's bytes, or the fill row for a chunk
 * never written. @throws Hdf5Error when a chunk is not a whole row inside the file
 */
std::vector<const std::byte*> map_row_chunks(hid_t dataset, const FieldSpec& spec, std::size_t rows, MappedFile& file);

}  // namespace shardrun::io::shards
