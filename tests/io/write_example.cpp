// Writes a finished results file the way `shardrun run` does, for results_file_test.py:
//   mpiexec -np N io_write_example OUT.h5 shards|single TASKS
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "parallel_run.hpp"

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        std::cerr << "usage: io_write_example OUT.h5 shards|single TASKS\n";
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    using namespace shardrun::io;
    const OutputOptions options{argv[1], std::string(argv[2]) == "single" ? Layout::single : Layout::shards};
    int code = 0;
    try {
        const auto summary = testing::run_parallel_job(options, std::strtoull(argv[3], nullptr, 10));
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0 && !summary.complete) code = 1;
    } catch (const std::exception& error) {
        std::cerr << "io_write_example: " << error.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}
