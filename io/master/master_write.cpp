// Writing the master file: consolidated from shards, or finishing a single-layout file.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/item_rows.hpp"
#include "io/master/master_file.hpp"
#include "io/output_layout.hpp"
#include "io/single/single_sink.hpp"

namespace fs = std::filesystem;

namespace shardrun::io::master {
void publish(const fs::path& temp, const fs::path& target)
{
    if (!layout::sync_path(temp) || std::rename(temp.c_str(), target.c_str()) != 0) {
        SHARDRUN_THROW(OutputError, "cannot write " + target.string() + ": " + std::strerror(errno) +
                                    "; check free space and permissions, then rerun with --resume");
    }
    layout::sync_path(fs::absolute(target).parent_path());
}

void write_master(const fs::path& target, const MasterInfo& info, TaskTable& table)
{
    if (table.first_id != 0) throw std::logic_error("write_master needs the table of the whole job");
    hdf5::silence_hdf5_errors();
    const fs::path temp = target.string() + ".tmp";
    layout::clear_for_create(temp);
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        create_result_datasets(file.get(), info.fields, table.rows.size());
        const auto problems = table.problems.size();
        copy_results(file.get(), info.fields, table);  // may turn rows of a bad segment back to pending
        write_task_columns(file.get(), table.rows);
        write_params(file.get(), info);
        assemble_item_rows(file.get(), info.fields);  // item_rows.hpp: before the dimensions
        write_dimensions(file.get(), table.rows.size());
        auto final_info = info;
        final_info.complete = info.complete && table.problems.size() == problems;
        final_info.counts = StatusCounts{};
        final_info.counts.add(table.rows);
        write_root_attrs(file.get(), final_info);
        file.close();
    } catch (const Hdf5Error& error) {
        std::remove(temp.c_str());
        SHARDRUN_THROW(OutputError, "cannot write the master file " + temp.string() + ": " + error.what() +
                                    "; free disk space and rerun with --resume");
    }
    publish(temp, target);
}

void finish_single(const fs::path& single, const fs::path& target, const MasterInfo& info, const TaskTable& table)
{
    if (table.first_id != 0) throw std::logic_error("finish_single needs the table of the whole job");
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(single.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
        write_params(file.get(), info);
        fill_missing_rows(file.get(), info.fields, table.rows);
        single::set_task_string_form(file.get(), false);
        write_time_units(file.get());
        assemble_item_rows(file.get(), info.fields);  // item_rows.hpp: before the dimensions
        write_dimensions(file.get(), table.rows.size());
        auto final_info = info;
        final_info.counts = StatusCounts{};
        final_info.counts.add(table.rows);
        write_root_attrs(file.get(), final_info);
        file.close();
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, "cannot finish " + single.string() + ": " + error.what() +
                                    "; free disk space and rerun with --resume");
    }
    if (!target.empty()) publish(single, target);
}

}  // namespace shardrun::io::master
