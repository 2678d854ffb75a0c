#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "io/input/ranged_file.hpp"

namespace shardrun::io {

/**
 * Reads of a RangedFile a page at a time, each page fetched once. HDF5 opens a file with many
 * small reads (signature, superblock, object headers, heaps) that mostly share a page, so a
 * dataset's shape costs one or two ranged reads instead of the whole file. Missing pages next to
 * each other are fetched in one call.
 */
class PageCache {
public:
    /** `file.head` seeds the cache (its whole pages, and its last one when it reaches the end). */
    PageCache(const RangedFile& file, std::uint64_t page_size);

    /**
     * Copies [offset, offset + size) into `out`; bytes past the file's end read as zeros.
     * @throws InputError when file.read returns fewer bytes than asked; what file.read throws
     */
    void read(std::uint64_t offset, std::size_t size, char* out);

    /** The file's length. */
    std::uint64_t size() const noexcept { return file_.size; }
    /** Bytes fetched through file.read so far (not counting the head). */
    std::uint64_t fetched_bytes() const noexcept { return fetched_; }
    /** Calls of file.read so far. */
    std::uint64_t fetches() const noexcept { return fetches_; }

private:
    void fetch(std::uint64_t first_page, std::uint64_t end_page);

    const RangedFile& file_;
    std::uint64_t page_size_;
    std::map<std::uint64_t, std::string> pages_;  ///< by page index; the last page may be short
    std::uint64_t fetched_ = 0;
    std::uint64_t fetches_ = 0;
};

}  // namespace shardrun::io
