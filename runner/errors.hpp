#pragma once

#include <string>

#include "base/error.hpp"

namespace shardrun {

/** Bad command line or environment (exit 2). */
class UsageError : public Error {
public:
    UsageError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
    int exit_code() const noexcept override { return exit_bad_input; }
};

/** Bad job file: the message starts with file:line:col and names the field (exit 2). */
class JobFileError : public Error {
public:
    JobFileError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
    int exit_code() const noexcept override { return exit_bad_input; }
};

/**
 * An error every rank has agreed on (see run_agreed): the rank that saw it first prints it,
 * and every rank leaves with `code` without MPI_Abort.
 */
class CollectiveFailure : public Error {
public:
    CollectiveFailure(const char* file, int line, const std::string& what, int code, bool print_here)
        : Error(file, line, what), code_(code), print_here_(print_here) {}
    int code() const noexcept { return code_; }
    int exit_code() const noexcept override { return code_; }
    bool print_here() const noexcept { return print_here_; }

private:
    int code_;
    bool print_here_;
};

}  // namespace shardrun
