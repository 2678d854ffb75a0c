#pragma once

#include <stdexcept>
#include <string>

namespace shardrun {

/** Exit codes of the shardrun executable, documented in README.md. */
enum ExitCode : int {
    exit_ok = 0,
    exit_task_failed = 1,
    exit_bad_input = 2,
    exit_interrupted = 3,
    /** Drained before any task finished in this run: the same run again cannot finish (issue 35, point 1). */
    exit_drained_without_progress = 4,
};

/**
 * Base of every error shardrun throws, in io, kernels, collectives and the runner alike, so
 * main() maps any of them to an exit code with one question (exit_code()). what() is the
 * one-line message users read, exactly as thrown; file() and line() say where it was thrown,
 * for developers, and are not added to it. Throw with SHARDRUN_THROW, which fills them in.
 */
class Error : public std::runtime_error {
public:
    /** @param file  a string literal (__FILE__): only the pointer is kept */
    Error(const char* file, int line, const std::string& what) : std::runtime_error(what), file_(file), line_(line) {}

    const char* file() const noexcept { return file_; }
    int line() const noexcept { return line_; }
    /** How a run that ends with this error exits: exit_bad_input for what the user fixes before running, else 1. */
    virtual int exit_code() const noexcept { return exit_task_failed; }

private:
    const char* file_;
    int line_;
};

}  // namespace shardrun

/** The error `Type` built with `args...` after the source location, for a throw elsewhere or an exception_ptr. */
#define SHARDRUN_ERROR(Type, ...) Type(__FILE__, __LINE__, __VA_ARGS__)
/** Throws `Type(__FILE__, __LINE__, args...)`: every shardrun error's constructor takes the throw site first. */
#define SHARDRUN_THROW(Type, ...) throw SHARDRUN_ERROR(Type, __VA_ARGS__)
