#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/input/line_index.hpp"

namespace shardrun::io {

/** Each record's id (`data.id`): int64 when every record's is an integer, else text. */
struct ItemIds {
    bool integer = true;
    std::vector<std::int64_t> ints;
    std::vector<std::string> text;

    std::size_t size() const { return integer ? ints.size() : text.size(); }
};

/**
 * The value of `key` (a JSON key of jsonl records, a CSV column) in every record of `path`.
 * A CSV column whose every value is a whole number gives int64 ids.
 * @throws InputError "path:line: ..." for a record without the key, or an id that is not an
 *         integer or a string; "path: ..." for a CSV without such a column or a text input
 */
ItemIds read_item_ids(const std::string& path, const LineIndex& index, const std::string& key);

/**
 * The first id that repeats an earlier one, as (earlier record, repeating record); none when
 * every id is unique. Ids index /results/item: a repeated one would make `.sel(item=id)` two rows.
 */
std::optional<std::pair<std::size_t, std::size_t>> first_repeated_id(const ItemIds& ids);

/** The id of record k as text (for messages). */
std::string id_text(const ItemIds& ids, std::size_t k);

}  // namespace shardrun::io
