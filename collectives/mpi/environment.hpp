#pragma once

namespace shardrun::collectives {

/**
 * RAII owner of MPI_Init_thread / MPI_Finalize for the process.
 *
 * Asks for MPI_THREAD_MULTIPLE when available (dynamic-claim progress thread) and accepts
 * what the library grants. Safe to construct when MPI is already initialised (tests).
 */
class MpiEnvironment {
public:
    MpiEnvironment(int* argc, char*** argv);
    ~MpiEnvironment();
    MpiEnvironment(const MpiEnvironment&) = delete;
    MpiEnvironment& operator=(const MpiEnvironment&) = delete;

    /** Thread level granted by MPI (MPI_THREAD_*). */
    int thread_level() const noexcept { return thread_level_; }

private:
    bool owns_ = false;
    int thread_level_ = 0;
};

/**
 * MPI_Finalize now, unless MPI is not initialised or already finalised (then nothing): for a
 * caller that times it and still has something to say after it (the run's summary). Every
 * communicator must be freed before. MpiEnvironment's destructor then finds it done.
 */
void finalize_mpi();

/** MPI library version string (MPI_Get_library_version), first line only. */
const char* mpi_library_version();

}  // namespace shardrun::collectives
