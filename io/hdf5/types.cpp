#include "io/hdf5/types.hpp"

#include <cstdint>

namespace shardrun::io::hdf5 {

hid_t native_type(DType dtype)
{
    switch (dtype) {
    case DType::float32: return H5T_NATIVE_FLOAT;
    case DType::float64: return H5T_NATIVE_DOUBLE;
    case DType::int32: return H5T_NATIVE_INT32;
    case DType::int64: return H5T_NATIVE_INT64;
    }
    SHARDRUN_THROW(Hdf5Error, "unknown result dtype");
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
