#include "runner/run/agreement.hpp"

#include <mpi.h>

#include <string>

#include "collectives/mpi/mpi_error.hpp"
#include "runner/errors.hpp"
#include "runner/run/error_codes.hpp"

namespace shardrun::run {

void run_agreed(const std::function<void()>& step)
{
    int rank = 0, size = 1;
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    SHARDRUN_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    std::string message;
    int code = 0;
    try {
        step();
    } catch (const CollectiveFailure&) {
        throw;
    } catch (const std::exception& error) {
        message = error.what();
        code = exit_code_of(error);
    }
    const int mine = code != 0 ? rank : size;
    int first_failing = size;
    SHARDRUN_MPI_CHECK(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (first_failing == size) return;
    int agreed_code = code;
    SHARDRUN_MPI_CHECK(MPI_Bcast(&agreed_code, 1, MPI_INT, first_failing, MPI_COMM_WORLD));
    throw CollectiveFailure(message, agreed_code, rank == first_failing);
}

}  // namespace shardrun::run
