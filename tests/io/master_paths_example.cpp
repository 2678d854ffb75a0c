// Writes one job's master twice, for master_stream_test.py: streamed (finalize, then merge,
// a block of rows at a time) and through the whole-table path it replaced (TaskTable +
// write_master), so the two can be compared dataset by dataset.
//   mpiexec -np N io_master_paths_example OUT.h5 shards|single TASKS
// Leaves OUT.final.h5 (finalize_output) and OUT.table0.h5 (the table path over the same rows),
// then, after a re-run segment is added and a segment lost (layout shards), OUT.merged.h5
// (merge_output) and OUT.table1.h5.
#include <mpi.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "io/gather/task_table.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/shards/segment.hpp"
#include "output_test_support.hpp"
#include "parallel_run.hpp"

namespace fs = std::filesystem;
using namespace shardrun::io;

namespace {

/** A later segment of rank 0 that re-ran task 3 (failed at first) with success: ok must win. */
void add_rerun_segment(const std::string& path, std::uint64_t task_count)
{
    const auto fields = testing::test_fields();
    TaskRows rows;
    for (const std::uint64_t id : {std::uint64_t{3}, task_count - 1}) {
        auto record = testing::test_record(id, 0);
        record.status = TaskStatus::ok;
        record.exit_code = 0;
        record.attempts = 7;
        record.host = "rerun-host-with-a-longer-name";
        rows.append(record, testing::test_values(id, fields), fields);
    }
    const auto manifest = read_manifest(path, 0).value();
    shards::write_segment(layout::segment_path(layout::rank_dir(path, 0, 0), 900000),
                          shards::SegmentHeader{manifest.job_hash, 0, 0, 900000}, rows, fields);
}

/** The master of the table path, stated as merge_output() states it. */
void write_table_master(const std::string& path, const std::string& target, std::uint64_t task_count)
{
    const auto manifest = read_manifest(path, 0).value();
    master::MasterInfo info{manifest.metadata, manifest.job_hash, manifest.layout, manifest.created,
                            manifest.finished, true, manifest.fields, testing::test_params(task_count),
                            testing::test_ranges(task_count)};
    info.metadata.array_index = -1;
    TaskTable table(task_count);
    table.verify_results = false;
    table.gather_element(path, 0, 0, task_count);
    if (manifest.layout == Layout::single && !fs::exists(layout::single_path(path, 0))) table.gather_single(path, 0, task_count);
    info.complete = table.count(static_cast<std::int8_t>(TaskStatus::pending), 0, task_count) == 0;
    master::write_master(target, info, table);
}

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        std::cerr << "usage: io_master_paths_example OUT.h5 shards|single TASKS\n";
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const std::string path = argv[1];
    OutputOptions options{path, std::string(argv[2]) == "single" ? Layout::single : Layout::shards};
    options.keep_shards = true;  // the table paths read the segments again after finalize
    const std::uint64_t task_count = std::strtoull(argv[3], nullptr, 10);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    try {
        testing::run_parallel_job(options, task_count);
        if (rank == 0) {
            write_table_master(path, path + ".table0.h5", task_count);
            fs::copy_file(path, path + ".final.h5");
            if (options.layout == Layout::shards) {
                add_rerun_segment(path, task_count);
                // A lost segment: its tasks are pending in every master.
                fs::remove(layout::segment_path(layout::rank_dir(path, 0, 1), 2));
            }
            write_table_master(path, path + ".table1.h5", task_count);
            merge_output(path);
            fs::copy_file(path, path + ".merged.h5");
        }
    } catch (const std::exception& error) {
        std::cerr << "io_master_paths_example: " << error.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
