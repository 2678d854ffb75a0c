#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardrun::io {

/**
 * Each record's id (`data.id`): int64 when every record's is an integer, else text. They are
 * the coordinate of the `item` dimension (/results/item); io/input/item_ids.hpp reads them.
 */
struct ItemIds {
    bool integer = true;
    std::vector<std::int64_t> ints;
    std::vector<std::string> text;

    std::size_t size() const { return integer ? ints.size() : text.size(); }
};

/**
 * The first id that repeats an earlier one, as (earlier record, repeating record); none when
 * every id is unique. Ids index /results/item: a repeated one would make `.sel(item=id)` two rows.
 */
std::optional<std::pair<std::size_t, std::size_t>> first_repeated_id(const ItemIds& ids);

/** The id of record k as text (for messages). */
std::string id_text(const ItemIds& ids, std::size_t k);

}  // namespace shardrun::io
