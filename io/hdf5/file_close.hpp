#pragma once

#include <hdf5.h>

namespace shardrun::io::hdf5 {

/*
 * Closing an HDF5 file without leaving HDF5 poisoned.
 *
 * HDF5 1.10.8's H5Fclose flushes the file. When that flush fails (a full disk), H5F__dest has
 * already freed the file's structures, yet the id stays registered and H5Fclose returns -1.
 * HDF5's own shutdown (at exit, or inside MPI_Finalize through its MPI_COMM_SELF attribute)
 * then closes that id again and dies of SIGSEGV in H5F__close_cb. A failed H5Fflush is no
 * way out: it leaves the metadata cache's skip list enabled ("slist already enabled?"), so
 * every later flush and the close fail the same way. So a flush must never meet a full disk:
 * before it, the file's blocks up to HDF5's end of allocation are reserved (fallocate); when
 * that fails, nothing has been flushed, the id is whole, and the file is closed with its
 * pending writes sent to memory (discard_pending_writes).
 */

/**
 * Closes `file` after reserving the space its flush needs. When the space cannot be reserved,
 * throws Hdf5Error (the cause, e.g. "No space left on device") and `file` stays open, still
 * the caller's to close. Once H5Fclose has been called, `file` is set to H5I_INVALID_HID even
 * when it failed (then the freed id is remembered and never touched again) and this throws.
 */
void close_file_checked(hid_t& file);

/**
 * Closes `file` and never throws: when the space its flush needs cannot be reserved, what it
 * still had to write is thrown away (discard_pending_writes), so the close cannot fail. What
 * the file held after its last successful flush stays on disk.
 */
void close_file_quietly(hid_t file) noexcept;

/**
 * Reserves (fallocate, FALLOC_FL_KEEP_SIZE) the blocks of a POSIX-driver file up to HDF5's
 * end of allocation, so that flushing its metadata cannot run out of space. True when reserved
 * or when the driver or file system cannot tell (MPI-IO, no fallocate); false with the errno.
 */
bool reserve_for_flush(hid_t file, int* error_number) noexcept;

/**
 * Points the POSIX descriptor of `file` (sec2 driver) at an anonymous memory file: every later
 * write of this id, including those of its closing flush, lands there and vanishes. Only for a
 * file whose unwritten changes are lost anyway. Returns false for other drivers.
 */
bool discard_pending_writes(hid_t file) noexcept;

/**
 * Closes every HDF5 object still open in this process (an error path leaked it), so that HDF5's
 * shutdown has nothing left to close. Returns how many were open. Ids whose close already
 * failed are left alone: touching them again is what crashes.
 */
long close_leftover_objects() noexcept;

/**
 * Arranges close_leftover_objects() to run before HDF5 shuts down: at exit, and at the start of
 * MPI_Finalize when MPI is running (an MPI_COMM_SELF attribute set after HDF5's own, so MPI
 * deletes it first). Idempotent; silence_hdf5_errors(), which every io entry point calls, calls it.
 */
void close_leftovers_before_shutdown() noexcept;

}  // namespace shardrun::io::hdf5
