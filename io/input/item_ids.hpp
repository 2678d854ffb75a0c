#pragma once

#include <string>

#include "io/input/line_index.hpp"
#include "io/item_ids.hpp"

namespace shardrun::io {

/**
 * The value of `key` (a JSON key of jsonl records, a CSV column) in every record of `path`.
 * A CSV column whose every value is a whole number gives int64 ids.
 * @throws InputError "path:line: ..." for a record without the key, or an id that is not an
 *         integer or a string; "path: ..." for a CSV without such a column or a text input
 */
ItemIds read_item_ids(const std::string& path, const LineIndex& index, const std::string& key);

}  // namespace shardrun::io
