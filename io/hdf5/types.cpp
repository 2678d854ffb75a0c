#include "io/hdf5/types.hpp"

#include <cstdint>

#include "io/hdf5/attributes.hpp"

namespace shardrun::io::hdf5 {

hid_t native_type(DType dtype)
{
    switch (dtype) {
    case DType::float32: return H5T_NATIVE_FLOAT;
    case DType::float64: return H5T_NATIVE_DOUBLE;
    case DType::int32: return H5T_NATIVE_INT32;
    case DType::int64: return H5T_NATIVE_INT64;
    case DType::boolean: return H5T_NATIVE_UINT8;
    }
    SHARDRUN_THROW(Hdf5Error, "unknown result dtype");
}

bool is_bool_storage(hid_t type)
{
    return H5Tget_class(type) == H5T_INTEGER && H5Tget_size(type) == 1 && H5Tget_sign(type) == H5T_SGN_NONE;
}

void mark_bool_field(hid_t dataset)
{
    write_attr(dataset, "dtype", std::string("bool"));
}

Datatype vlen_string_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tcopy(H5T_C_S1));
    SHARDRUN_H5_CHECK(H5Tset_size(type.get(), H5T_VARIABLE));
    SHARDRUN_H5_CHECK(H5Tset_cset(type.get(), H5T_CSET_UTF8));
    return type;
}

Datatype status_enum_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tenum_create(H5T_NATIVE_INT8));
    for (const auto status : {TaskStatus::pending, TaskStatus::ok, TaskStatus::failed, TaskStatus::skipped}) {
        const auto value = static_cast<std::int8_t>(status);
        SHARDRUN_H5_CHECK(H5Tenum_insert(type.get(), task_status_name(status), &value));
    }
    return type;
}

Datatype bool_type()
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Tenum_create(H5T_NATIVE_INT8));
    const std::int8_t no = 0, yes = 1;
    SHARDRUN_H5_CHECK(H5Tenum_insert(type.get(), "FALSE", &no));
    SHARDRUN_H5_CHECK(H5Tenum_insert(type.get(), "TRUE", &yes));
    return type;
}

}  // namespace shardrun::io::hdf5
