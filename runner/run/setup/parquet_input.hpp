#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/input/item_ids.hpp"

namespace shardrun::run {

/** A Parquet input's row count (from its footer) and, when asked, the column `id_column`. */
struct ParquetRows {
    std::uint64_t rows = 0;
    std::optional<io::ItemIds> ids;
};

/**
 * Reads the footer of the Parquet file `path` (and the column `id_column` when not empty) with
 * pyarrow, in $SHARDRUN_PYTHON, else `python3` from PATH: shardrun links no Parquet library.
 * @throws io::InputError naming pyarrow when python3 or pyarrow is missing, or the file's problem
 */
ParquetRows read_parquet_rows(const std::string& path, const std::string& id_column);

}  // namespace shardrun::run
