#include "io/library_info.hpp"

#include <hdf5.h>

namespace shardrun::io {

std::string hdf5_version()
{
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

std::mutex& hdf5_mutex()
{
    static std::mutex mutex;
    return mutex;
}

bool hdf5_is_parallel()
{
#ifdef H5_HAVE_PARALLEL
    return true;
#else
    return false;
#endif
}

}  // namespace shardrun::io
