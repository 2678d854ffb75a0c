// Writing the master file: what every master shares (temp file, the parts after the rows,
// publish), and the whole-table path, kept as the reference the streamed master is compared with.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "io/hdf5/handle.hpp"
#include "io/layout/output_layout.hpp"
#include "io/master/master_file.hpp"
#include "io/task_rows/item_rows.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::master {

void publish(const fs::path& temp, const fs::path& target, std::string_view retry)
{
    if (!layout::sync_path(temp) || std::rename(temp.c_str(), target.c_str()) != 0) {
        const int saved = errno;
        if (temp != target) std::remove(temp.c_str());  // a master that was not published is not kept
        layout::throw_write_error("cannot write " + target.string(), saved,
                                  "check free space and permissions, then " + std::string(retry));
    }
    layout::sync_path(fs::absolute(target).parent_path());
}

std::string write_failed_message(const std::string& what, const Hdf5Error& error, std::string_view retry)
{
    // The system's reason (error.cause(), e.g. "No space left on device"), not HDF5's call
    // chain: that is what the user can act on.
    return what + ": " + error.cause() + "; free disk space and " + std::string(retry);
}

void finish_master_file(hid_t file, const MasterInfo& info, std::uint64_t task_count, const StatusCounts& counts,
                        bool complete)
{
    write_params(file, info);  // skipped when the file has them
    write_time_units(file);
    // item_rows.hpp: before the dimensions; data.id's ids label the items.
    assemble_item_rows(file, info.fields, {}, info.param_source != nullptr ? info.param_source->item_ids() : nullptr);
    write_dimensions(file, task_count);
    if (!info.ranks.empty()) write_ranks(file, info.ranks);
    if (!info.gpus.empty()) write_gpus(file, info.gpus);
    // The root attributes without info's T-long columns (no copy of them).
    MasterInfo attrs{info.metadata, info.hash, info.layout, info.created, info.finished, complete, info.fields, {}, {}};
    attrs.counts = counts;
    attrs.segments_digest = info.segments_digest;
    attrs.quarantined = info.quarantined;
    write_root_attrs(file, attrs);
}

void write_master_file(const fs::path& target, const std::function<void(hid_t file)>& write_contents,
                       std::string_view retry)
{
    hdf5::silence_hdf5_errors();
    const fs::path temp = target.string() + ".tmp";
    layout::clear_for_create(temp);
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        write_contents(file.get());
        file.close();  // flushes first: a full disk throws here at the latest, and `file` still closes cleanly
    } catch (const Hdf5Error& error) {
        std::remove(temp.c_str());
        SHARDRUN_THROW(WriteError, write_failed_message("cannot write the master file " + temp.string(), error, retry));
    } catch (...) {
        std::remove(temp.c_str());
        throw;
    }
    publish(temp, target, retry);
}

void write_master(const fs::path& target, const MasterInfo& info, TaskTable& table)
{
    if (table.first_id != 0) throw std::logic_error("write_master needs the table of the whole job");
    write_master_file(target, [&](hid_t file) {
        create_result_datasets(file, info.fields, table.rows.size(), true);
        const auto problems = table.problems.size();
        copy_results(file, info.fields, table);  // may turn rows of a bad segment back to pending
        write_task_columns(file, table.rows);
        StatusCounts counts;
        counts.add(table.rows);
        finish_master_file(file, info, table.rows.size(), counts, info.complete && table.problems.size() == problems);
    });
}

}  // namespace shardrun::io::master
