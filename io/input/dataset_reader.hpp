#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "io/input/ranged_file.hpp"

namespace shardrun::io {

/**
 * A task input that cannot be used: missing file or dataset, wrong rank or dtype, bad range.
 * Bad input (exit 2), as data.input's check before the run reports it.
 */
class InputError : public Error {
public:
    InputError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
    int exit_code() const noexcept override { return exit_bad_input; }
};

/** "file.h5:/group/dataset" split at its last ':'. */
struct DatasetLocation {
    std::string file;
    std::string dataset;

    /** Back to "file:/dataset", for messages. */
    std::string text() const { return file + ":" + dataset; }
};

/** @throws InputError when `spec` has no ':' or an empty part */
DatasetLocation parse_dataset_location(const std::string& spec);

/** What a dataset holds. */
struct DatasetInfo {
    std::vector<std::uint64_t> dims;  ///< the dataset's shape
    std::string dtype;                ///< "float32", "float64", "int32", "int64", ... or "other"
};

/**
 * Shape and dtype of a dataset (plain, non-MPI file access; safe from several threads).
 * @throws InputError naming the file or dataset when it cannot be opened
 */
DatasetInfo describe_dataset(const DatasetLocation& location);

/**
 * Shape and dtype of `dataset` in a file read by ranges (an object in a bucket): only the pages
 * HDF5 reads to open the file and the dataset's header are fetched, never its data.
 * @throws InputError as above; whatever `file.read` threw when a read failed
 */
DatasetInfo describe_dataset(const RangedFile& file, const std::string& dataset);

/**
 * Rows [start, end) along the first dimension of a float32 dataset, row-major.
 * @param rank  the rank the caller needs (e.g. 3 for [N, height, width])
 * @param layout  how the caller names those dimensions, for the message ("[N, height, width]")
 * @param info  when not null, receives the dataset's shape and dtype
 * @throws InputError for a wrong rank or dtype (the message gives both), or a range past the end
 */
std::vector<float> read_float32_rows(const DatasetLocation& location, std::uint64_t start, std::uint64_t end,
                                     int rank, std::string_view layout, DatasetInfo* info = nullptr);

}  // namespace shardrun::io
