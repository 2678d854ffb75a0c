#include "io/task_rows/item_id_column.hpp"

#include "io/hdf5/columns.hpp"

namespace shardrun::io::master {

hdf5::Dataset write_item_id_column(hid_t parent, const std::string& name, const ItemIds& ids, std::size_t count)
{
    const auto n = ids.size();
    if (ids.integer) {
        std::vector<std::int64_t> values(count);
        for (std::size_t i = 0; i < count; ++i) values[i] = n == 0 ? 0 : ids.ints[i % n];
        return hdf5::write_column(parent, name, H5T_NATIVE_INT64, H5T_NATIVE_INT64, values.data(), count);
    }
    std::vector<std::string> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = n == 0 ? std::string() : ids.text[i % n];
    return hdf5::write_strings(parent, name, values);
}

std::optional<ItemIds> read_item_id_column(hid_t parent, const std::string& name)
{
    if (!hdf5::has_link(parent, name)) return std::nullopt;
    ItemIds ids;
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(parent, name.c_str(), H5P_DEFAULT));
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset.get()));
    const auto kind = H5Tget_class(type.get());
    if (kind != H5T_INTEGER && kind != H5T_STRING) return std::nullopt;  // a bare dimension (float32, no values)
    ids.integer = kind == H5T_INTEGER;
    dataset.reset();
    if (ids.integer) {
        ids.ints = hdf5::read_column<std::int64_t>(parent, name, H5T_NATIVE_INT64);
    } else {
        ids.text = hdf5::read_strings(parent, name);
    }
    return ids;
}

}  // namespace shardrun::io::master
