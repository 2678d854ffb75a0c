// /tasks/host and /tasks/device as int32 codes plus a coordinate of their texts (label_columns.hpp).
#include "io/task_rows/label_columns.hpp"

#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/types.hpp"

namespace shardrun::io {

LabelCodes::LabelCodes() : labels_{""}, index_{{"", 0}} {}

std::int32_t LabelCodes::code(const std::string& value)
{
    if (labels_[static_cast<std::size_t>(last_)] == value) return last_;
    const auto [at, added] = index_.try_emplace(value, static_cast<std::int32_t>(labels_.size()));
    if (added) labels_.push_back(value);
    last_ = at->second;
    return last_;
}

std::string label_coordinate_name(const std::string& column) { return column + "_label"; }

hdf5::Dataset create_code_column(hid_t group, const std::string& name, std::uint64_t rows)
{
    const hsize_t extent = rows;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    const std::int32_t none = 0;
    SHARDRUN_H5_CHECK(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_INT32, &none));
    return SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(group, name.c_str(), H5T_STD_I32LE, space.get(), H5P_DEFAULT,
                                                dcpl.get(), H5P_DEFAULT));
}

void write_codes_block(hid_t dataset, LabelCodes& codes, std::uint64_t first, const std::vector<std::string>& values)
{
    std::vector<std::int32_t> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) out[i] = codes.code(values[i]);
    hdf5::write_column_block(dataset, H5T_NATIVE_INT32, first, out.size(), out.data());
}

void write_code_labels(hid_t file, hid_t group, const std::string& name, const LabelCodes& codes)
{
    const auto label_name = label_coordinate_name(name);
    if (hdf5::has_link(group, label_name)) SHARDRUN_H5_CHECK(H5Ldelete(group, label_name.c_str(), H5P_DEFAULT));
    auto labels = hdf5::write_strings(group, label_name, codes.labels());
    hdf5::make_dimension_scale(file, labels.get());
    auto column = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
    hdf5::write_attr(column.get(), "labels", label_name);
}

bool is_code_column(hid_t group, const std::string& name)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    return SHARDRUN_H5_CHECK(H5Tget_class(type.get())) == H5T_INTEGER;
}

std::vector<std::string> read_text_column(hid_t group, const std::string& name, std::uint64_t first, std::size_t count)
{
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
    if (!is_code_column(group, name)) return hdf5::read_strings_block(dataset.get(), first, count);
    const auto codes = hdf5::read_column_block<std::int32_t>(dataset.get(), H5T_NATIVE_INT32, first, count);
    // Named by the column's `labels` attribute: a column renamed for a rewrite keeps its labels.
    const auto label_name = hdf5::read_string_attr(dataset.get(), "labels").value_or(label_coordinate_name(name));
    auto label_set = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, label_name.c_str(), H5P_DEFAULT));
    const auto labels = hdf5::read_strings_block(label_set.get(), 0, hdf5::dataset_length(label_set.get()));
    std::vector<std::string> values;
    values.reserve(count);
    for (const auto code : codes) {
        if (code < 0 || static_cast<std::size_t>(code) >= labels.size()) {
            SHARDRUN_THROW(Hdf5Error, "/tasks/" + name + " holds code " + std::to_string(code) + " without a label");
        }
        values.push_back(labels[static_cast<std::size_t>(code)]);
    }
    return values;
}

}  // namespace shardrun::io
