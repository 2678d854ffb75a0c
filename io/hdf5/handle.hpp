#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

#include "io/errors.hpp"
#include "io/hdf5/file_close.hpp"

namespace shardrun::io::hdf5 {

/** @internal Builds the Hdf5Error message from the current HDF5 error stack. */
[[noreturn]] void throw_hdf5_error(const char* call, const char* file, int line);

/** Turns off HDF5's printing of error stacks; errors reach the caller as Hdf5Error. */
void silence_hdf5_errors();

/**
 * Checks the result of an HDF5 call (negative means failure) and throws Hdf5Error naming
 * the call and HDF5's innermost message. Evaluates to the call's result.
 */
#define SHARDRUN_H5_CHECK(call) SHARDRUN_H5_CHECK_AS(call, #call)

/** @internal SHARDRUN_H5_CHECK naming the call as `text` (the source, before macro expansion). */
#define SHARDRUN_H5_CHECK_AS(call, text)                                                    \
    ([&] {                                                                                  \
        auto shardrun_h5_result_ = (call);                                                  \
        if (shardrun_h5_result_ < 0) ::shardrun::io::hdf5::throw_hdf5_error(text, __FILE__, __LINE__); \
        return shardrun_h5_result_;                                                         \
    }())

/**
 * Move-only owner of one HDF5 id, closed by `Close` (H5Fclose, H5Dclose, ...). Like a
 * unique_ptr with a custom deleter, but for hid_t, which is an integer.
 */
template <herr_t (*Close)(hid_t)>
class Handle {
public:
    Handle() = default;
    /** Takes ownership of `id`; throws when the call that produced it failed. */
    explicit Handle(hid_t id) : id_(id) {}
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
    Handle& operator=(Handle&& other) noexcept
    {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, H5I_INVALID_HID);
        }
        return *this;
    }
    ~Handle() { reset(); }

    hid_t get() const noexcept { return id_; }
    explicit operator bool() const noexcept { return id_ >= 0; }

    /**
     * Closes now and reports a failure. A file is flushed first (file_close.hpp): a full disk
     * throws while the id is still whole and still this handle's, which then closes it quietly.
     */
    void close()
    {
        if (id_ < 0) return;
        if constexpr (Close == &H5Fclose) {
            close_file_checked(id_);  // sets id_ invalid once H5Fclose was called
        } else {
            const hid_t id = std::exchange(id_, H5I_INVALID_HID);
            SHARDRUN_H5_CHECK(Close(id));
        }
    }

    /** Closes, ignoring errors (destructors must not throw); a file never leaves HDF5 poisoned. */
    void reset() noexcept
    {
        if (id_ < 0) return;
        if constexpr (Close == &H5Fclose) {
            close_file_quietly(id_);
        } else {
            Close(id_);
        }
        id_ = H5I_INVALID_HID;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
};

using File = Handle<H5Fclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;
using Attribute = Handle<H5Aclose>;
using Group = Handle<H5Gclose>;
using PropList = Handle<H5Pclose>;

/** Wraps the id returned by an HDF5 create/open call, throwing when it failed. */
#define SHARDRUN_H5_OPEN(Type, call) ::shardrun::io::hdf5::Type(SHARDRUN_H5_CHECK_AS(call, #call))

}  // namespace shardrun::io::hdf5
