#pragma once

#include <stdexcept>
#include <string>

namespace shardrun {

/** Base of shardrun's own errors; main() is the only place that catches them. */
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/** Bad command line or environment (exit 2). */
class UsageError : public Error {
public:
    explicit UsageError(const std::string& what) : Error(what) {}
};

/** Bad job file: the message starts with file:line:col and names the field (exit 2). */
class JobFileError : public Error {
public:
    explicit JobFileError(const std::string& what) : Error(what) {}
};

/**
 * An error every rank has agreed on (see run_agreed): the rank that saw it first prints it,
 * and every rank leaves with `code` without MPI_Abort.
 */
class CollectiveFailure : public Error {
public:
    CollectiveFailure(const std::string& what, int code, bool print_here)
        : Error(what), code_(code), print_here_(print_here) {}
    int code() const noexcept { return code_; }
    bool print_here() const noexcept { return print_here_; }

private:
    int code_;
    bool print_here_;
};

/** Exit codes of the shardrun executable, documented in README.md. */
enum ExitCode : int {
    exit_ok = 0,
    exit_task_failed = 1,
    exit_bad_input = 2,
    exit_interrupted = 3,
};

}  // namespace shardrun
