#include "io/input/result_datasets.hpp"

#include <hdf5.h>

#include <fmt/format.h>

#include <mutex>

#include "io/errors.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/library_info.hpp"

namespace shardrun::io {
namespace {

std::string shape_text(const std::vector<hsize_t>& shape)
{
    return fmt::format("[{}]", fmt::join(shape, ", "));
}

/** Why `dataset` cannot hold `field`, or empty when it can. */
std::string mismatch(hid_t dataset, const FieldSpec& field)
{
    auto type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(dataset));
    const auto type_class = H5Tget_class(type.get());
    const bool is_float = field.dtype == DType::float32 || field.dtype == DType::float64;
    // A bool: h5py writes numpy's bool as a 1-byte enum {FALSE, TRUE}; a uint8 0/1 is taken too.
    const bool class_ok = field.dtype == DType::boolean ? type_class == H5T_ENUM || type_class == H5T_INTEGER
                          : is_float                    ? type_class == H5T_FLOAT
                                                        : type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2;
    if (!class_ok || H5Tget_size(type.get()) != dtype_size(field.dtype)) {
        const auto* kind = type_class == H5T_FLOAT ? "float" : type_class == H5T_INTEGER ? "integer" : "non-numeric";
        return fmt::format("is a {}-byte {}, the field is declared {}", H5Tget_size(type.get()), kind,
                           dtype_name(field.dtype));
    }
    const auto extents = hdf5::dataset_extents(dataset);
    const std::vector<hsize_t> want(field.shape.begin(), field.shape.end());
    const bool scalar_as_one = want.empty() && extents == std::vector<hsize_t>{1};
    if (extents != want && !scalar_as_one) {
        return fmt::format("has shape {}, the task must write {}", shape_text(extents), shape_text(want));
    }
    return {};
}

std::variant<FoundValues, std::string> read_all(const std::string& path, const std::vector<FieldSpec>& fields)
{
    auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    FoundValues found(fields.size());
    std::vector<hdf5::Dataset> datasets;
    // Every shape first, so a wrong one fails the task before any large read.
    for (const auto& field : fields) {
        if (!hdf5::has_link(file.get(), field.name)) {
            datasets.emplace_back();
            continue;
        }
        datasets.push_back(SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file.get(), field.name.c_str(), H5P_DEFAULT)));
        const auto why = mismatch(datasets.back().get(), field);
        if (!why.empty()) return fmt::format("results field '{}': $SHARDRUN_RESULT_H5 dataset /{} {}", field.name, field.name, why);
    }
    for (std::size_t f = 0; f < fields.size(); ++f) {
        if (!datasets[f]) continue;
        std::vector<std::byte> bytes(fields[f].bytes());
        // HDF5 converts no enum to an integer: a bool's byte is read as it is stored, then checked.
        auto file_type = SHARDRUN_H5_OPEN(Datatype, H5Dget_type(datasets[f].get()));
        const hid_t memory_type = fields[f].dtype == DType::boolean ? file_type.get() : hdf5::native_type(fields[f].dtype);
        SHARDRUN_H5_CHECK(H5Dread(datasets[f].get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()));
        if (fields[f].dtype == DType::boolean && !holds_only_bools(bytes)) {
            return fmt::format("results field '{}': $SHARDRUN_RESULT_H5 dataset /{} holds a bool other than 0 or 1",
                               fields[f].name, fields[f].name);
        }
        found[f] = std::move(bytes);
    }
    return found;
}

}  // namespace

std::variant<FoundValues, std::string> read_result_datasets(const std::string& path,
                                                            const std::vector<FieldSpec>& fields)
{
    const std::lock_guard lock(hdf5_mutex());
    hdf5::silence_hdf5_errors();
    if (H5Fis_hdf5(path.c_str()) <= 0) return std::string("$SHARDRUN_RESULT_H5 is not an HDF5 file");
    try {
        return read_all(path, fields);
    } catch (const Hdf5Error& error) {
        return fmt::format("$SHARDRUN_RESULT_H5 cannot be read: {}", error.what());
    }
}

}  // namespace shardrun::io
