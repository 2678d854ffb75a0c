#include "io/params_file.hpp"

#include <cstdio>

#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/master/master_file.hpp"
#include "io/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

ParamColumn read_column_any(hid_t group, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    const auto type_class = SHARDRUN_H5_CHECK(H5Tget_class(type.get()));
    if (type_class == H5T_STRING) return ParamColumn{name, hdf5::read_strings(group, name)};
    if (type_class == H5T_INTEGER) return ParamColumn{name, hdf5::read_column<std::int64_t>(group, name, H5T_NATIVE_INT64)};
    return ParamColumn{name, hdf5::read_column<double>(group, name, H5T_NATIVE_DOUBLE)};
}

}  // namespace

void write_params_file(const fs::path& file, const std::vector<ParamColumn>& params, const TaskRanges& ranges)
{
    hdf5::silence_hdf5_errors();
    const fs::path temp = file.string() + ".tmp";
    layout::clear_for_create(temp);
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fcreate(temp.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT));
        master::write_params(h5.get(), params, ranges);
        h5.close();
    } catch (const Hdf5Error& error) {
        std::remove(temp.c_str());
        SHARDRUN_THROW(OutputError, "cannot write " + temp.string() + ": " + error.what() + "; free disk space and rerun with --resume");
    }
    if (!layout::sync_path(temp) || std::rename(temp.c_str(), file.c_str()) != 0) {
        SHARDRUN_THROW(OutputError, "cannot write " + file.string() + "; check free space and rerun with --resume");
    }
}

void read_params_file(const fs::path& file, const std::vector<std::string>& names, std::vector<ParamColumn>& params,
                      TaskRanges& ranges)
{
    hdf5::silence_hdf5_errors();
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "params", H5P_DEFAULT));
        for (const auto& name : names) params.push_back(read_column_any(group.get(), name));
        if (hdf5::has_link(h5.get(), "ranges")) {
            auto group_ranges = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "ranges", H5P_DEFAULT));
            ranges.start = hdf5::read_column<std::int64_t>(group_ranges.get(), "start", H5T_NATIVE_INT64);
            ranges.end = hdf5::read_column<std::int64_t>(group_ranges.get(), "end", H5T_NATIVE_INT64);
        }
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, file.string() + " is unreadable (" + error.what() + "); rerun that array element with --resume");
    }
}

}  // namespace shardrun::io
