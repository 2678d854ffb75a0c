#pragma once

#include <stdexcept>
#include <string>

#include "base/error.hpp"

namespace shardrun::io {

/**
 * An HDF5 call failed. The message names the call, the source line and the innermost
 * HDF5 error (often a system error such as "File too large").
 */
class Hdf5Error : public Error {
public:
    Hdf5Error(const char* file, int line, const std::string& what, std::string cause = "")
        : Error(file, line, what), cause_(cause.empty() ? what : std::move(cause)) {}
    /** The innermost cause on one line, e.g. "No space left on device": what users read. */
    const std::string& cause() const noexcept { return cause_; }

private:
    std::string cause_;
};

/**
 * Committed results could not be written: disk full, quota, I/O error. Not bad input: exit
 * code 1. The message is one line naming the file, the system's
 * reason and what to do; nothing committed before is lost.
 */
class WriteError : public Error {
public:
    WriteError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/**
 * A problem the user fixes before running: output not writable, exists without
 * --resume/--force, locked by another run, written by a different job. One line that names
 * the path and what to do; exit code 2.
 */
class OutputError : public Error {
public:
    OutputError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
    int exit_code() const noexcept override { return exit_bad_input; }
};

/**
 * A task's values do not match the declared fields (wrong count or size). Thrown by
 * ResultSink::record() before anything is stored; the runner records the task again as
 * failed with empty values.
 */
class ResultShapeError : public Error {
public:
    ResultShapeError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

}  // namespace shardrun::io
