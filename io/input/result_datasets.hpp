#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::io {

/** Per field, in the order given: its bytes when the file has a dataset of that name, else nullopt. */
using FoundValues = std::vector<std::optional<std::vector<std::byte>>>;

/**
 * Reads an exec task's $SHARDRUN_RESULT_H5: for each of `fields`, the root dataset of the
 * same name, when there is one. A dataset must have the field's type class (float or signed
 * integer) and element size, and exactly the field's shape (a scalar also takes shape [1]);
 * byte order is converted by HDF5. The dataset sizes are checked before anything is read.
 * @param fields  the shapes the task must deliver (a short chunk already has its row count)
 * @return the values found, or a one-line reason naming the file's problem
 */
std::variant<FoundValues, std::string> read_result_datasets(const std::string& path,
                                                            const std::vector<FieldSpec>& fields);

}  // namespace shardrun::io
