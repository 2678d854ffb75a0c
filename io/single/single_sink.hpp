#pragma once

#include <string>
#include <vector>

#include "base/communicator.hpp"
#include "io/hdf5/handle.hpp"
#include "io/output_spec.hpp"
#include "io/result_sink.hpp"
#include "io/single/row_selection.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::single {

/** Width of the fixed-length host/device strings of a single-layout file (MPI-IO cannot write variable-length data). */
inline constexpr std::size_t fixed_string_bytes = 64;

/**
 * @internal layout single: every rank writes its rows straight into one preallocated file
 * <path>.shards/a<index>/single.h5 through MPI-IO (OMPIO). The constructor, commit() and
 * the destructor are collective over `comm`. commit() writes /results rows, flushes,
 * then the /tasks rows and flushes again, so a row whose status reads ok has its results.
 * Then the variable-length part, /tasks/message and /attempts, which parallel HDF5 1.10
 * cannot write: the ranks gather it on rank 0, close the file, and rank 0 writes it alone
 * (single_reasons.hpp); the next commit, if any, opens the file again.
 */
class SingleSink : public ResultSink {
public:
    SingleSink(const OutputOptions& options, const JobMetadata& metadata, std::vector<FieldSpec> fields,
               base::Communicator& comm);
    ~SingleSink() override;

    void record_locked(const TaskRecord& record, const TaskValues& values) override;
    void commit_locked() override;

private:
    void create_file(const std::string& file, const JobMetadata& metadata);
    void write_tasks(const std::vector<std::size_t>& order, const Collective& transfer);
    void write_reasons_on_rank0();

    std::vector<FieldSpec> fields_;
    TaskRows buffer_;
    std::vector<std::byte> sorted_;  ///< rows of one field in task order; reused across commits
    base::Communicator& comm_;  ///< the run's (an MPI communicator: MPI-IO opens the file over it)
    std::string path_;  ///< the element's single.h5, named in errors
    hdf5::File file_;   ///< open (through MPI-IO) from construction to each commit's end
};

/** Creates the /tasks columns [T] of a single-layout file, filled with pending rows. */
void create_task_columns(hid_t file, std::uint64_t task_count);

/**
 * /tasks/host and /tasks/device as fixed-length strings (`fixed`: what parallel HDF5 can
 * write, for a resumed run) or int32 codes with a label coordinate (the finished file, as in
 * a master: io/task_rows/label_columns.hpp).
 * The space of the old columns is not reclaimed (a few bytes per task per resume).
 */
void set_task_string_form(hid_t file, bool fixed);

}  // namespace shardrun::io::single
