#pragma once

#include <cstdint>
#include <exception>
#include <memory>

#include "io/input/page_cache.hpp"
#include "io/input/ranged_file.hpp"

namespace shardrun::io {

/**
 * A file access property list whose HDF5 driver (a read-only virtual file driver) reads a
 * RangedFile through a PageCache of 64 KiB pages. HDF5 1.10.8's own ROS3 driver is not used:
 * it signs requests only with a fixed key pair (no session token, no instance role, no profile)
 * and knows nothing of GCS, while the caller's read function reuses the credentials every other
 * transfer uses. Callers hold hdf5_mutex() while the list is alive.
 */
class RangedFileAccess {
public:
    static constexpr std::uint64_t page_size = 64 * 1024;

    explicit RangedFileAccess(const RangedFile& file);
    ~RangedFileAccess();
    RangedFileAccess(const RangedFileAccess&) = delete;
    RangedFileAccess& operator=(const RangedFileAccess&) = delete;

    /** The property list to give H5Fopen (an hid_t). */
    std::int64_t fapl() const noexcept { return fapl_; }

    /**
     * Rethrows what file.read threw, if it threw: HDF5 saw only a failed read, and the cause
     * (a transfer error, say) is what the user needs.
     */
    void rethrow_read_error() const;

    /** The driver's state, reached from HDF5's C callbacks. @internal */
    struct State {
        PageCache cache;
        std::exception_ptr error;
    };

private:
    std::unique_ptr<State> state_;
    std::int64_t fapl_ = -1;
};

}  // namespace shardrun::io
