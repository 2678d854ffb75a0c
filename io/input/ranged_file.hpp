#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace shardrun::io {

/**
 * A file read by byte ranges through the caller: an object in a bucket whose metadata is wanted
 * without downloading it whole. io/ knows nothing of where the bytes come from (runner/storage
 * reads them with rclone).
 */
struct RangedFile {
    std::string name;        ///< for messages: the URL
    std::uint64_t size = 0;  ///< the file's length in bytes
    /** Bytes [0, head.size()) already read (may be empty): the first call usually asks for them. */
    std::string head;
    /**
     * Returns exactly `count` bytes from `offset` (offset + count <= size). May throw; the
     * exception reaches the caller of describe_dataset() unchanged.
     */
    std::function<std::string(std::uint64_t offset, std::uint64_t count)> read;
};

}  // namespace shardrun::io
