#include "parallel_run.hpp"

#include <algorithm>
#include <vector>

#include "collectives/mpi/mpi_communicator.hpp"
#include "output_test_support.hpp"

namespace shardrun::io::testing {
namespace {

/** Owner of chunk `c`: irregular, so some ranks get nothing in some rounds. */
int owner(std::uint64_t chunk, int size) { return static_cast<int>((chunk * 7 + chunk / 3) % size); }

}  // namespace

std::string shared_scratch_dir()
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[256] = {};
    if (rank == 0) {
        const auto dir = scratch_dir();
        dir.copy(name, sizeof name - 1);
    }
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    return name;
}

OutputSummary run_parallel_job(const OutputOptions& options, std::uint64_t task_count, int array_count, int array_index)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    auto metadata = test_metadata(task_count, array_count, array_index);
    metadata.world_size = size;
    OutputLock lock;
    std::vector<std::uint64_t> done;
    if (rank == 0) {
        lock = prepare_output(options, metadata);
        done = committed_tasks(options, metadata);
    }
    auto count = static_cast<unsigned long long>(done.size());
    MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    done.resize(count);
    MPI_Bcast(done.data(), static_cast<int>(count), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const auto fields = test_fields();
    const auto world = collectives::mpi::world();  // outlives the sink: the single layout writes over it
    auto sink = open_rank_sink(options, metadata, fields, *world);
    const std::uint64_t chunk = 3, chunks = (task_count + chunk - 1) / chunk, chunks_per_round = 5;
    for (std::uint64_t first = 0; first < chunks; first += chunks_per_round) {
        const auto last = std::min(chunks, first + chunks_per_round);
        for (auto k = first; k < last; ++k) {
            // Odd rounds record their chunks backwards: sinks must not assume ascending ids.
            const auto c = (first / chunks_per_round) % 2 ? first + last - 1 - k : k;
            if (owner(c, size) != rank) continue;
            for (auto id = c * chunk; id < std::min(task_count, (c + 1) * chunk); ++id) {
                if (id < metadata.first_task || id >= metadata.end_task) continue;
                if (std::binary_search(done.begin(), done.end(), id)) continue;
                sink->record(with_reasons(test_record(id, rank)), test_values(id, fields));
            }
        }
        sink->commit();
    }
    sink.reset();  // collective for the single layout
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) return {};
    return finalize_output(options, metadata, fields, test_params(task_count), test_ranges(task_count), size);
}

}  // namespace shardrun::io::testing
