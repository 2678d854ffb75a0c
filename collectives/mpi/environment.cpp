#include "collectives/mpi/environment.hpp"

#include <mpi.h>
#include <exception>
#include <string>

#include "collectives/mpi/mpi_error.hpp"
#include "collectives/mpi/shared_cpus.hpp"

namespace shardrun::collectives {

MpiEnvironment::MpiEnvironment(int* argc, char*** argv)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized) {
        MPI_Query_thread(&thread_level_);
        return;
    }
    SHARDRUN_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &thread_level_));
    // Errors come back as codes so SHARDRUN_MPI_CHECK can turn them into exceptions.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    owns_ = true;
    mpi::yield_when_machine_oversubscribed();  // namespace or container "hosts" on one machine's CPUs
}

MpiEnvironment::~MpiEnvironment()
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    // While an exception unwinds, other ranks may be waiting in a collective: leave the
    // choice between MPI_Finalize and MPI_Abort to main(), which knows what went wrong.
    if (owns_ && !finalized && std::uncaught_exceptions() == 0) MPI_Finalize();
}

void finalize_mpi()
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Finalize();
}

const char* mpi_library_version()
{
    static std::string version = [] {
        char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int length = 0;
        MPI_Get_library_version(text, &length);
        std::string all(text, static_cast<size_t>(length));
        const auto end = all.find_first_of(",\n");
        return end == std::string::npos ? all : all.substr(0, end);
    }();
    return version.c_str();
}

}  // namespace shardrun::collectives
