#include "io/params/file_param_source.hpp"

#include "io/errors.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/task_rows/item_id_column.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {

FileParamSource::FileParamSource(const fs::path& file, const std::vector<std::string>& names) : path_(file)
{
    hdf5::silence_hdf5_errors();
    try {
        file_ = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file_.get(), "params", H5P_DEFAULT));
        for (const auto& name : names) {
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group.get(), name.c_str(), H5P_DEFAULT));
            auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
            const auto type_class = SHARDRUN_H5_CHECK(H5Tget_class(type.get()));
            columns_.push_back({name, type_class == H5T_STRING    ? ParamType::text
                                      : type_class == H5T_INTEGER ? ParamType::int64
                                                                  : ParamType::float64});
            task_count_ = hdf5::dataset_length(dataset.get());
            datasets_.push_back(std::move(dataset));
        }
        if (hdf5::has_link(file_.get(), "ranges")) {
            ranges_start_ = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file_.get(), "ranges/start", H5P_DEFAULT));
            ranges_end_ = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file_.get(), "ranges/end", H5P_DEFAULT));
            task_count_ = hdf5::dataset_length(ranges_start_.get());
        }
        // params.h5 holds them as /item_ids; a consolidated element's master as its item coordinate.
        item_ids_ = master::read_item_id_column(file_.get(), "item_ids");
        if (!item_ids_ && hdf5::has_link(file_.get(), "results/item")) {
            item_ids_ = master::read_item_id_column(file_.get(), "results/item");
        }
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, file.string() + " is unreadable (" + error.what() + "); rerun that array element with --resume");
    }
}

void FileParamSource::read(std::uint64_t first, std::size_t count, std::vector<ParamColumn>& params,
                           TaskRanges& ranges) const
{
    start_block(columns_, params, ranges);
    try {
        for (std::size_t i = 0; i < columns_.size(); ++i) {
            const hid_t dataset = datasets_[i].get();
            auto& values = params[i].values;
            if (columns_[i].type == ParamType::text) {
                std::get<std::vector<std::string>>(values) = hdf5::read_strings_block(dataset, first, count);
            } else if (columns_[i].type == ParamType::int64) {
                auto& column = std::get<std::vector<std::int64_t>>(values);
                column.resize(count);
                hdf5::read_column_block(dataset, H5T_NATIVE_INT64, first, count, column.data());
            } else {
                auto& column = std::get<std::vector<double>>(values);
                column.resize(count);
                hdf5::read_column_block(dataset, H5T_NATIVE_DOUBLE, first, count, column.data());
            }
        }
        if (!has_ranges()) return;
        ranges.start.resize(count);
        ranges.end.resize(count);
        hdf5::read_column_block(ranges_start_.get(), H5T_NATIVE_INT64, first, count, ranges.start.data());
        hdf5::read_column_block(ranges_end_.get(), H5T_NATIVE_INT64, first, count, ranges.end.data());
    } catch (const Hdf5Error& error) {
        SHARDRUN_THROW(OutputError, path_.string() + " is unreadable (" + error.what() + "); rerun that array element with --resume");
    }
}

}  // namespace shardrun::io
