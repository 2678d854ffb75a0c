#include "io/hdf5/attributes.hpp"

#include <memory>

#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"

namespace shardrun::io::hdf5 {
namespace {

void write_scalar(hid_t object, const std::string& name, hid_t type, const void* value)
{
    if (SHARDRUN_H5_CHECK(H5Aexists(object, name.c_str())) > 0) SHARDRUN_H5_CHECK(H5Adelete(object, name.c_str()));
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate(H5S_SCALAR));
    auto attr = SHARDRUN_H5_OPEN(Attribute, H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), type, value));
}

std::optional<Attribute> open_attr(hid_t object, const std::string& name)
{
    if (SHARDRUN_H5_CHECK(H5Aexists(object, name.c_str())) <= 0) return std::nullopt;
    return SHARDRUN_H5_OPEN(Attribute, H5Aopen(object, name.c_str(), H5P_DEFAULT));
}

}  // namespace

void write_attr(hid_t object, const std::string& name, const std::string& value)
{
    const auto type = vlen_string_type();
    const char* text = value.c_str();
    write_scalar(object, name, type.get(), &text);
}

void write_attr(hid_t object, const std::string& name, std::int64_t value)
{
    write_scalar(object, name, H5T_NATIVE_INT64, &value);
}

void write_attr(hid_t object, const std::string& name, double value)
{
    write_scalar(object, name, H5T_NATIVE_DOUBLE, &value);
}

void write_bool_attr(hid_t object, const std::string& name, bool value)
{
    const auto type = bool_type();
    const std::int8_t flag = value ? 1 : 0;
    write_scalar(object, name, type.get(), &flag);
}

void write_attr(hid_t object, const std::string& name, const std::vector<std::string>& values)
{
    if (SHARDRUN_H5_CHECK(H5Aexists(object, name.c_str())) > 0) SHARDRUN_H5_CHECK(H5Adelete(object, name.c_str()));
    const auto type = vlen_string_type();
    const hsize_t count = values.size();
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &count, nullptr));
    auto attr = SHARDRUN_H5_OPEN(Attribute,
                                 H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
    if (values.empty()) return;  // an empty list (a job with no result fields) has nothing to write
    std::vector<const char*> pointers;
    for (const auto& value : values) pointers.push_back(value.c_str());
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), type.get(), pointers.data()));
}

std::optional<std::string> read_string_attr(hid_t object, const std::string& name)
{
    auto attr = open_attr(object, name);
    if (!attr) return std::nullopt;
    const auto type = vlen_string_type();
    char* text = nullptr;
    SHARDRUN_H5_CHECK(H5Aread(attr->get(), type.get(), &text));
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
}

std::optional<std::int64_t> read_int_attr(hid_t object, const std::string& name)
{
    auto attr = open_attr(object, name);
    if (!attr) return std::nullopt;
    std::int64_t value = 0;
    SHARDRUN_H5_CHECK(H5Aread(attr->get(), H5T_NATIVE_INT64, &value));
    return value;
}

std::vector<std::string> read_string_list_attr(hid_t object, const std::string& name)
{
    auto attr = open_attr(object, name);
    if (!attr) return {};
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Aget_space(attr->get()));
    const auto count = SHARDRUN_H5_CHECK(H5Sget_simple_extent_npoints(space.get()));
    const auto type = vlen_string_type();
    std::vector<char*> pointers(static_cast<std::size_t>(count));
    if (count > 0) SHARDRUN_H5_CHECK(H5Aread(attr->get(), type.get(), pointers.data()));
    std::vector<std::string> values;
    for (char* text : pointers) {
        values.emplace_back(text ? text : "");
        H5free_memory(text);
    }
    return values;
}

std::optional<bool> read_bool_attr(hid_t object, const std::string& name)
{
    auto attr = open_attr(object, name);
    if (!attr) return std::nullopt;
    const auto type = bool_type();
    std::int8_t flag = 0;
    SHARDRUN_H5_CHECK(H5Aread(attr->get(), type.get(), &flag));
    return flag != 0;
}

std::optional<double> read_double_attr(hid_t object, const std::string& name)
{
    auto attr = open_attr(object, name);
    if (!attr) return std::nullopt;
    double value = 0;
    SHARDRUN_H5_CHECK(H5Aread(attr->get(), H5T_NATIVE_DOUBLE, &value));
    return value;
}

}  // namespace shardrun::io::hdf5
