#pragma once

#include <string>

#include "base/error.hpp"

namespace shardrun::collectives {

/** An MPI call returned an error code. */
class MpiError : public Error {
public:
    MpiError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/** Throws MpiError naming the call and MPI's own error string when `code` is not MPI_SUCCESS. */
void check_mpi(int code, const char* call, const char* file, int line);

}  // namespace shardrun::collectives

#define SHARDRUN_MPI_CHECK(call) ::shardrun::collectives::check_mpi((call), #call, __FILE__, __LINE__)
