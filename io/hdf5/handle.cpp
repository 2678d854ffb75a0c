#include "io/hdf5/handle.hpp"

#include <mutex>
#include <string>

namespace shardrun::io::hdf5 {
namespace {

/** Collects the innermost (last) messages of the HDF5 error stack. */
herr_t collect_message(unsigned n, const H5E_error2_t* error, void* data)
{
    auto& text = *static_cast<std::string*>(data);
    // Walking upward, entry 0 is the deepest one: it names the real cause (e.g. the
    // system call's errno); the outer entries only say which API call failed.
    if (n != 0 || error->desc == nullptr) return 0;
    text = std::string(error->func_name ? error->func_name : "?") + ": " + error->desc;
    return 0;
}

// HDF5's file drivers put the system's words in "error message = '...'"; that is the reason
// a user can act on (e.g. "No space left on device").
std::string system_reason(const std::string& cause)
{
    const std::string marker = "error message = '";
    const auto start = cause.find(marker);
    if (start == std::string::npos) {
        // "H5F__super_read: file signature not found": the words after the function name.
        const auto colon = cause.find(": ");
        return colon == std::string::npos ? cause : cause.substr(colon + 2);
    }
    const auto end = cause.find('\'', start + marker.size());
    return cause.substr(start + marker.size(), end == std::string::npos ? std::string::npos : end - start - marker.size());
}

}  // namespace

void silence_hdf5_errors()
{
    static std::once_flag once;
    std::call_once(once, [] { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); });
    close_leftovers_before_shutdown();
}

void throw_hdf5_error(const char* call, const char* file, int line)
{
    std::string cause;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_message, &cause);
    H5Eclear2(H5E_DEFAULT);
    for (auto& c : cause) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    std::string message = std::string("HDF5 call ") + call + " failed at " + file + ":" + std::to_string(line);
    if (!cause.empty()) message += " (" + cause + ")";
    throw Hdf5Error(file, line, message, system_reason(cause));
}

}  // namespace shardrun::io::hdf5
