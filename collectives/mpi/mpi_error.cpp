#include "collectives/mpi/mpi_error.hpp"

#include <mpi.h>
#include <string>

namespace shardrun::collectives {

void check_mpi(int code, const char* call, const char* file, int line)
{
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw MpiError(file, line, std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                   std::string(text, static_cast<size_t>(length)));
}

}  // namespace shardrun::collectives
