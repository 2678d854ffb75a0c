#include "io/single/single_sink.hpp"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <span>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/types.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/single/native_comm.hpp"
#include "io/single/row_selection.hpp"
#include "io/single/single_reasons.hpp"
#include "io/single/task_reasons.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::single {
namespace {

/** Rank 0 decides whether an existing file can be continued (resume); everyone learns it. */
bool reusable(base::Communicator& comm, const std::string& file, std::uint64_t task_count)
{
    const int rank = comm.rank();
    int reuse = 0;
    // A planted symlink is never followed: it goes, and a fresh file is made in its place.
    std::error_code error;
    if (rank == 0 && fs::is_symlink(fs::symlink_status(file, error))) fs::remove(file, error);
    if (rank == 0 && fs::exists(file)) {
        try {
            auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
            reuse = hdf5::column_length(h5.get(), "tasks/status") == task_count;
        } catch (const Hdf5Error&) {
            reuse = 0;  // torn by a crash before its first flush: start it again
        }
        if (!reuse) fs::remove(file);
    }
    return comm.broadcast_value(reuse, 0) != 0;
}

/**
 * MPI-IO reports a failed write as "file write failed", without the system's errno: when the
 * file's file system has no space left, that is the reason a user can act on.
 */
std::string write_reason(const Hdf5Error& failure, const std::string& path)
{
    struct statvfs disk {};
    const auto folder = fs::path(path).parent_path();
    if (::statvfs(folder.c_str(), &disk) == 0 && disk.f_bavail == 0) return std::strerror(ENOSPC);
    return failure.cause();
}

hdf5::PropList parallel_access(const base::Communicator& comm)
{
    auto fapl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_FILE_ACCESS));
    SHARDRUN_H5_CHECK(H5Pset_fapl_mpio(fapl.get(), native_comm(comm), MPI_INFO_NULL));
    // Large datasets start on 1 MiB boundaries: file-system stripes and MPI-IO aggregators line up.
    SHARDRUN_H5_CHECK(H5Pset_alignment(fapl.get(), 64 * 1024, 1024 * 1024));
    return fapl;
}

hdf5::File open_parallel(const base::Communicator& comm, const std::string& file)
{
    const auto fapl = parallel_access(comm);
    return SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl.get()));
}

hdf5::PropList collective_transfer()
{
    auto dxpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_XFER));
    SHARDRUN_H5_CHECK(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE));
    return dxpl;
}

}  // namespace

SingleSink::SingleSink(const OutputOptions& options, const JobMetadata& metadata, std::vector<FieldSpec> fields,
                       base::Communicator& comm)
    : fields_(std::move(fields)), comm_(comm), path_(layout::single_path(options.path, metadata.array_index).string())
{
    static_cast<void>(native_comm(comm_));  // refused on every rank before the first collective call
    hdf5::silence_hdf5_errors();
    buffer_.fields.resize(fields_.size());
    const auto& file = path_;
    std::error_code error;
    fs::create_directories(fs::path(file).parent_path(), error);
    const bool reuse = reusable(comm_, file, metadata.task_count);
    try {
        if (reuse) {
            file_ = open_parallel(comm_, file);
        } else {
            create_file(file, metadata);
        }
    } catch (const Hdf5Error& failure) {
        SHARDRUN_THROW(OutputError, "cannot open " + file + " for parallel writing: " + failure.what() +
                                    "; check that the output folder is writable from every node");
    }
}

SingleSink::~SingleSink() = default;  // an open file_ closes collectively (every rank destroys its sink)

void SingleSink::create_file(const std::string& file, const JobMetadata& metadata)
{
    const auto fapl = parallel_access(comm_);
    file_ = SHARDRUN_H5_OPEN(File, H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
    create_task_columns(file_.get(), metadata.task_count);
    master::create_result_datasets(file_.get(), fields_, metadata.task_count);
    std::vector<std::string> names;
    for (const auto& field : fields_) names.push_back(field.name);
    hdf5::write_attr(file_.get(), "fields", names);
    hdf5::write_attr(file_.get(), "params_sha256", job_hash(metadata));
    // Every object exists from here on; later commits write raw data only, so a kill
    // mid-commit cannot tear the file's metadata.
    SHARDRUN_H5_CHECK(H5Fflush(file_.get(), H5F_SCOPE_GLOBAL));
}

void SingleSink::record_locked(const TaskRecord& record, const TaskValues& values)
{
    check_values(record, values, fields_);
    buffer_.append(record, values, fields_);  // clear() keeps the capacity for the next batch
}

void SingleSink::commit_locked()
{
    std::vector<std::size_t> order(buffer_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return buffer_.task_id[a] < buffer_.task_id[b]; });
    const auto dxpl = collective_transfer();
    const Collective collective{dxpl.get(), comm_};
    try {
        if (!file_) file_ = open_parallel(comm_, path_);  // closed by the previous commit's last step
        for (std::size_t f = 0; f < fields_.size(); ++f) {
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file_.get(), ("results/" + fields_[f].name).c_str(), H5P_DEFAULT));
            // Tasks usually arrive in id order: then the buffer is written as it is.
            const std::byte* rows = buffer_.fields[f].data();
            if (!std::is_sorted(buffer_.task_id.begin(), buffer_.task_id.end())) {
                gather_rows(buffer_.fields[f], fields_[f].bytes(), order, sorted_);
                rows = sorted_.data();
            }
            write_rows(dataset.get(), fields_[f], buffer_.task_id, order, rows, collective);
        }
        agree(collective, H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
        write_tasks(order, collective);
        agree(collective, H5Fflush(file_.get(), H5F_SCOPE_GLOBAL), "H5Fflush");
    } catch (const Hdf5Error& failure) {
        SHARDRUN_THROW(WriteError, "cannot commit results to " + path_ + ": " + write_reason(failure, path_) +
                                   "; free disk space and rerun with --resume");
    }
    write_reasons_on_rank0();
    buffer_.clear();
}

void SingleSink::write_reasons_on_rank0()
{
    // Why rank 0 and not a fixed-width column: parallel HDF5 1.10 writes no variable-length
    // data, and a fixed width would cut messages and cap the attempts per task, where the
    // schema (and every reader) of a shards master takes them whole. One gather per commit
    // is cheap: layout single commits once per run. The file is closed on every rank first:
    // HDF5 does not open one file twice with different drivers.
    const auto reasons = gather_reasons(comm_, buffer_);
    try {
        file_.close();
    } catch (const Hdf5Error& failure) {
        SHARDRUN_THROW(WriteError, "cannot commit results to the single-layout file: " + failure.cause() +
                                   "; free disk space and rerun with --resume");
    }
    std::string failed;
    if (comm_.rank() == 0) {
        try {
            write_reasons(path_, reasons);
        } catch (const Hdf5Error& failure) {
            failed = failure.cause();
        }
    }
    // Every rank learns rank 0's outcome and fails alike, as after a failed collective write.
    failed.resize(comm_.broadcast_value<std::uint64_t>(failed.size(), 0));
    comm_.broadcast(std::span<char>(failed), 0);
    if (!failed.empty()) {
        SHARDRUN_THROW(WriteError, "cannot write the task messages and attempts to " + path_ + ": " + failed +
                                   "; free disk space and rerun with --resume");
    }
}

}  // namespace shardrun::io::single
