#include "io/hdf5/file_close.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <mpi.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "io/hdf5/handle.hpp"

namespace shardrun::io::hdf5 {
namespace {

std::mutex poisoned_mutex;
std::vector<hid_t> poisoned;  // ids whose H5Fclose failed: HDF5 freed their object but kept the id

void note_failed_close(hid_t file) noexcept
{
    if (H5Iis_valid(file) <= 0) return;
    try {
        const std::lock_guard lock(poisoned_mutex);
        poisoned.push_back(file);
    } catch (...) {
    }
}

bool is_poisoned(hid_t id)
{
    const std::lock_guard lock(poisoned_mutex);
    return std::find(poisoned.begin(), poisoned.end(), id) != poisoned.end();
}

bool writable(hid_t file) noexcept
{
    unsigned intent = 0;
    return H5Fget_intent(file, &intent) >= 0 && (intent & H5F_ACC_RDWR) != 0;
}

/** The file descriptor of a file opened with the POSIX (sec2) driver; -1 for other drivers. */
int posix_descriptor(hid_t file) noexcept
{
    // An MPI-IO file first, asked without a collective call: H5Fget_access_plist of such a
    // file duplicates its communicator (MPI_Comm_dup), which hangs when the other ranks are
    // not closing the file at that moment.
#ifdef H5_HAVE_PARALLEL
    hbool_t atomic = false;
    if (H5Fget_mpi_atomicity(file, &atomic) >= 0) return -1;
    H5Eclear2(H5E_DEFAULT);
#endif
    const hid_t fapl = H5Fget_access_plist(file);
    if (fapl < 0) return -1;
    const bool sec2 = H5Pget_driver(fapl) == H5FD_SEC2;
    H5Pclose(fapl);
    void* handle = nullptr;
    if (!sec2 || H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr) return -1;
    return *static_cast<int*>(handle);
}

void close_leftovers_now() noexcept
{
    const long count = close_leftover_objects();
#ifndef NDEBUG
    if (count > 0) std::cerr << "shardrun: debug: " << count << " HDF5 object(s) were still open at shutdown\n";
#else
    (void)count;
#endif
}

int close_leftovers_at_finalize(MPI_Comm, int, void*, void*)
{
    close_leftovers_now();
    return MPI_SUCCESS;
}

}  // namespace

void close_file_checked(hid_t& file)
{
    int error_number = 0;
    if (writable(file) && !reserve_for_flush(file, &error_number)) {
        // Nothing was flushed: the id is whole and still the caller's, whose handle discards it.
        const std::string reason = std::strerror(error_number);
        throw Hdf5Error(__FILE__, __LINE__, "cannot reserve space for the last writes of an HDF5 file: " + reason, reason);
    }
    const hid_t id = std::exchange(file, H5I_INVALID_HID);  // after H5Fclose, failed or not, never touched again
    if (H5Fclose(id) < 0) {
        try {
            throw_hdf5_error("H5Fclose(file)", __FILE__, __LINE__);  // reads the error stack first
        } catch (...) {
            note_failed_close(id);
            throw;
        }
    }
}

void close_file_quietly(hid_t file) noexcept
{
    try {
        if (is_poisoned(file)) return;
    } catch (...) {
        return;
    }
    int error_number = 0;
    if (writable(file) && !reserve_for_flush(file, &error_number)) discard_pending_writes(file);
    if (H5Fclose(file) < 0) {
        H5Eclear2(H5E_DEFAULT);
        note_failed_close(file);
    }
}

bool reserve_for_flush(hid_t file, int* error_number) noexcept
{
    const int descriptor = posix_descriptor(file);
    hsize_t size = 0;
    if (descriptor < 0 || H5Fget_filesize(file, &size) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return true;  // not the POSIX driver (MPI-IO): nothing to reserve with
    }
    // A file-size limit (ulimit -f) is not checked by fallocate with FALLOC_FL_KEEP_SIZE, but
    // the flush's writes past it would fail (EFBIG).
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && size > limit.rlim_cur) {
        if (error_number) *error_number = EFBIG;
        return false;
    }
    // Blocks for every byte up to the end of HDF5's allocation, without changing the size the
    // driver knows: the flush then writes into space the file already owns.
    if (::fallocate(descriptor, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(size)) == 0) return true;
    if (errno == EOPNOTSUPP || errno == ENOSYS) return true;  // a file system without it: flush and see
    if (error_number) *error_number = errno;
    return false;
}

bool discard_pending_writes(hid_t file) noexcept
{
    const int descriptor = posix_descriptor(file);
    if (descriptor < 0) return false;
    const int memory = ::memfd_create("shardrun-discarded-hdf5", MFD_CLOEXEC);
    if (memory < 0) return false;
    // dup2 closes the real file's descriptor and puts the memory file in its place.
    const bool moved = ::dup2(memory, descriptor) == descriptor;
    ::close(memory);
    return moved;
}

long close_leftover_objects() noexcept
{
    const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (open <= 0) return 0;
    std::vector<hid_t> ids(static_cast<std::size_t>(open));
    const ssize_t listed = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_ALL, ids.size(), ids.data());
    ids.resize(static_cast<std::size_t>(std::max<ssize_t>(listed, 0)));
    long closed = 0;
    // Objects inside files first, so that each file's last close is its H5Fclose.
    for (const hid_t id : ids) {
        const auto type = H5Iget_type(id);
        if (type == H5I_ATTR) closed += H5Aclose(id) >= 0;
        if (type == H5I_DATASET || type == H5I_GROUP || type == H5I_DATATYPE) closed += H5Oclose(id) >= 0;
    }
    for (const hid_t id : ids) {
        if (H5Iget_type(id) != H5I_FILE) continue;
        bool skip = true;
        try {
            skip = is_poisoned(id);
        } catch (...) {
        }
        if (skip) continue;
        close_file_quietly(id);
        ++closed;
    }
    H5Eclear2(H5E_DEFAULT);
    return closed;
}

void close_leftovers_before_shutdown() noexcept
{
    static std::once_flag once;
    std::call_once(once, [] {
        H5open();  // HDF5 registers its own shutdown first, so ours runs before it (both are LIFO)
        std::atexit(close_leftovers_now);
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (!initialized || finalized) return;
        int key = MPI_KEYVAL_INVALID;
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, close_leftovers_at_finalize, &key, nullptr) == MPI_SUCCESS) {
            MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
        }
    });
}

}  // namespace shardrun::io::hdf5
