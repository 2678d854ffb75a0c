// prepare_output(): the checks and the lock that come before any task runs.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>

#include "base/documented_error.hpp"
#include "io/gather/row_gatherer.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/job_output.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/element_match.hpp"
#include "io/layout/output_layout.hpp"
#include "io/single/single_sink.hpp"
#include "io/task_rows/item_rows.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

/** What to do after a write that failed with `error_number`: a full disk is no wrong path. */
std::string remedy(int error_number)
{
    const bool full = error_number == ENOSPC || error_number == EDQUOT;
    return full ? "free disk space, then rerun with --resume" : "choose a writable output.path";
}

void make_dirs(const fs::path& dir, const std::string& path)
{
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) {
        // A full disk (or quota, or I/O error) is a WriteError, exit 1; permissions an OutputError, exit 2.
        layout::throw_write_error("cannot create " + dir.string() + " for output " + path, error.value(),
                                  remedy(error.value()));
    }
}

/**
 * Writes who holds the lock into its file ("pid 4711 on node-a since 2026-11-28 16:50:01 UTC"),
 * so that a refused run names it (issue 35, point 11). The lock is the flock, not the text: a
 * failure to write it loses only the name. Written over the earlier run's text, then cut to its
 * length: the file keeps its block, so on a disk that is already full the name is still written,
 * and so is the reason a full disk ends this run with (run_end_reason.hpp). Cutting it to 0
 * first would give the block back and leave an empty file that nothing can be written into.
 */
void name_holder(int fd)
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const auto now = std::time(nullptr);
    char when[32] = {};
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
    const auto text = "pid " + std::to_string(getpid()) + " on " + host + " since " + when + "\n";
    if (::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) return;
    if (::ftruncate(fd, static_cast<off_t>(text.size())) != 0) return;  // an earlier reason's line may trail it
}

OutputLock take_lock(const OutputOptions& options, int array_index)
{
    const auto file = layout::lock_path(options.path, array_index);
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int error_number = errno;
        layout::throw_write_error("cannot write " + file.string(), error_number, remedy(error_number));
    }
    OutputLock lock(fd);
    // A reader (status, table) probes the lock by taking it for a moment (layout::lock_held):
    // a few short retries keep such a probe from refusing a run; a run holds it for good.
    bool locked = false;
    for (int attempt = 0; attempt < 5 && !(locked = ::flock(fd, LOCK_EX | LOCK_NB) == 0); ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!locked) {
        const auto holder = layout::lock_holder(fd);
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#output-locked",
                                  options.path + " is being written by another shardrun run (lock " + file.string() +
                                  " is held" + (holder.empty() ? "" : " by " + holder) +
                                  "); wait for it to finish or choose another output.path");
    }
    return lock;
}

/** The job hash recorded by an earlier run: the element's manifest, else the master's attribute. */
std::string recorded_hash(const OutputOptions& options, int array_index)
{
    if (const auto manifest = read_manifest(options.path, array_index)) return manifest->job_hash;
    if (!fs::exists(options.path)) return "";
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        return hdf5::read_string_attr(file.get(), "params_sha256").value_or("");
    } catch (const Hdf5Error&) {
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#output-exists",
                                  options.path + " exists but is not a readable shardrun results file; use --force to "
                                  "overwrite it or choose another output.path");
    }
}

/** True when `path` is an HDF5 file with shardrun's job hash attribute. */
bool is_shardrun_file(const std::string& path)
{
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        return hdf5::read_string_attr(file.get(), "params_sha256").has_value();
    } catch (const Hdf5Error&) {
        return false;
    }
}

/**
 * True when <path> is a complete shards-layout master of this job: the results of an element
 * whose manifest is gone (its shards were deleted by hand, as the README once advised).
 */
bool complete_master_of(const OutputOptions& options, const JobMetadata& metadata)
{
    if (options.layout != Layout::shards || !fs::exists(options.path)) return false;
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(options.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const auto hash = hdf5::read_string_attr(file.get(), "params_sha256");
        // The master of the job this one extends holds ids 0..T-1 with their parameters (fewer tasks).
        const bool extended = !metadata.earlier_jobs.empty() && hash == extended_job_hash(metadata);
        return (hash == job_hash(metadata) || extended) && hdf5::read_string_attr(file.get(), "layout") == "shards" &&
               (extended ||
                hdf5::read_int_attr(file.get(), "task_count") == static_cast<std::int64_t>(metadata.task_count)) &&
               hdf5::read_bool_attr(file.get(), "complete") == true;
    } catch (const Hdf5Error&) {
        return false;
    }
}

/** Whether an element's results were consolidated into <path> (then its only copy). */
bool any_consolidated(const std::string& path)
{
    for (const int index : layout::element_indexes(path)) {
        if (const auto manifest = read_manifest(path, index); manifest && manifest->consolidated) return true;
    }
    return false;
}

// Checked before anything is created: a wrong kind of path must leave no folder or lock behind.
void check_path_kind(const OutputOptions& options)
{
    std::error_code error;
    const auto status = fs::symlink_status(options.path, error);
    if (error || status.type() == fs::file_type::not_found) return;
    if (status.type() == fs::file_type::directory) {
        SHARDRUN_THROW(OutputError, options.path + " is a directory; output.path names the results file, e.g. " +
                                    (fs::path(options.path) / "results.h5").string());
    }
    if (status.type() != fs::file_type::regular) {
        SHARDRUN_THROW(OutputError, options.path + " exists and is not a regular file; choose another output.path");
    }
    if (!options.force && !is_shardrun_file(options.path)) {
        // The torn master of a finished run is no stranger's file: it was the only copy (trial 42).
        if (any_consolidated(options.path)) require_consolidated_master(options.path);
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#output-exists",
                                  options.path + " exists and is not a shardrun results file; choose another output.path "
                                  "(or --force to overwrite it)");
    }
}

/** A finished single-layout element lives at <path>; resuming moves it back to its slot. */
void reopen_single_master(const OutputOptions& options, const JobMetadata& metadata)
{
    const auto single = layout::single_path(options.path, metadata.array_index);
    if (options.layout != Layout::single || metadata.array_count != 1 || fs::exists(single)) return;
    if (!fs::exists(options.path)) return;
    std::error_code error;
    fs::rename(options.path, single, error);
    if (error) SHARDRUN_THROW(OutputError, "cannot move " + options.path + " back for --resume: " + error.message());
    try {
        // The finished file's host/device are variable-length; parallel HDF5 writes fixed-length only.
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(single.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        single::set_task_string_form(file.get(), true);
        master::split_item_rows(file.get());  // the sink writes every task's rows padded, [T, chunk, ...]
        file.close();
    } catch (const Hdf5Error& failure) {
        SHARDRUN_THROW(OutputError, "cannot reopen " + single.string() + " for --resume: " + failure.what() +
                                    "; rerun with --force to start again");
    }
}

void check_existing(const OutputOptions& options, const JobMetadata& metadata)
{
    const auto element = layout::element_dir(options.path, metadata.array_index);
    // In an array job <path> is what `shardrun merge` built from the elements found so far; an
    // element that had not run yet is not overwriting anything, and the next merge rebuilds it.
    const bool master_counts = metadata.array_count == 1;
    // A task folder left from another run counts too: its files would mix with this run's.
    const auto tasks = layout::tasks_dir(options.path);
    const bool tasks_exist = master_counts && fs::exists(fs::symlink_status(tasks));
    const bool exists = (master_counts && fs::exists(options.path)) || fs::exists(element) || tasks_exist;
    if (!exists) return;
    if (options.force) {
        std::error_code error;
        fs::remove_all(element, error);
        if (!error && master_counts) fs::remove(options.path, error);
        if (!error && tasks_exist) fs::remove_all(tasks, error);
        if (error) SHARDRUN_THROW(OutputError, "--force cannot delete the old output " + options.path + ": " + error.message());
        return;
    }
    // A finished element whose results live only in the master: with the master gone, --resume
    // would run every task again and a plain run's "already exists" advice leads there too. Said
    // before the lock names this run or the manifest changes (trial 42: a refused run looked like a crash).
    const auto manifest = read_manifest(options.path, metadata.array_index);  // read once for both checks
    if (manifest && manifest->consolidated && !fs::exists(layout::single_path(options.path, metadata.array_index))) {
        require_consolidated_master(options.path);
    }
    if (!options.resume) {
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#output-exists",
                                  options.path + " already exists; pass --resume to continue it or --force to overwrite it");
    }
    // The layouts keep committed rows in different files; switching would leave the rows of one
    // behind while the other looked complete.
    if (manifest && manifest->layout != options.layout) {
        const auto name = [](Layout l) { return l == Layout::single ? "single" : "shards"; };
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#resume-mismatch",
                                  options.path + " was written with output.layout " + name(manifest->layout) +
                                  "; --resume it with the same layout (not " + name(options.layout) +
                                  "), or use --force to start over");
    }
    const auto hash = recorded_hash(options, metadata.array_index);
    // An extended sweep (the runner checked it only adds points) continues its predecessor's output.
    const bool extends = !metadata.earlier_jobs.empty() && hash == extended_job_hash(metadata);
    if (!hash.empty() && hash != job_hash(metadata) && !extends) {
        SHARDRUN_THROW_DOCUMENTED(OutputError, "docs/troubleshooting.md#resume-mismatch",
                                  options.path + " was written by a different job (parameters hash " + hash.substr(0, 12) +
                                  ", this job " + job_hash(metadata).substr(0, 12) +
                                  "); use --force to overwrite it or choose another output.path");
    }
    reopen_single_master(options, metadata);
}

}  // namespace

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept
{
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

OutputLock::~OutputLock()
{
    if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the flock
}

OutputLock prepare_output(const OutputOptions& options, const JobMetadata& metadata)
{
    auto lock = lock_output(options, metadata);
    prepare_locked_output(options, metadata, lock);
    return lock;
}

OutputLock lock_output(const OutputOptions& options, const JobMetadata& metadata)
{
    check_path_kind(options);
    // Before anything is created: an element of another job or array count writes nothing.
    check_element_fits(options.path, metadata);
    const auto master = fs::absolute(options.path);
    make_dirs(master.parent_path(), options.path);
    make_dirs(layout::shards_dir(options.path), options.path);
    return take_lock(options, metadata.array_index);
}

void prepare_locked_output(const OutputOptions& options, const JobMetadata& metadata, const OutputLock& lock)
{
    check_existing(options, metadata);
    name_holder(lock.fd());  // only a run that goes on writes: a refused one leaves the file as it was
    make_dirs(layout::element_dir(options.path, metadata.array_index), options.path);

    const auto recorded = read_manifest(options.path, metadata.array_index);
    auto manifest = recorded.value_or(ElementManifest{});
    if (manifest.created == 0) manifest.created = now_seconds();
    if (!recorded && metadata.array_count == 1) manifest.consolidated = complete_master_of(options, metadata);
    manifest.metadata = metadata;
    manifest.job_hash = job_hash(metadata);
    manifest.layout = options.layout;
    manifest.finished = 0;
    manifest.stopped = 0;
    manifest.complete = false;
    write_manifest(options.path, manifest);
}

}  // namespace shardrun::io
