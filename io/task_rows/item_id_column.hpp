#pragma once

#include <hdf5.h>

#include <optional>
#include <string>

#include "io/hdf5/handle.hpp"
#include "io/item_ids.hpp"

namespace shardrun::io::master {

/**
 * The 1-D dataset `name` in `parent` of `count` ids: item i's id is ids[i % ids.size()] (a sweep
 * repeats the input's items once per point). int64, or variable-length UTF-8 strings.
 */
hdf5::Dataset write_item_id_column(hid_t parent, const std::string& name, const ItemIds& ids, std::size_t count);

/** The ids write_item_id_column stored as `name` in `parent`; nullopt when there is none (or `name` is a bare dimension). */
std::optional<ItemIds> read_item_id_column(hid_t parent, const std::string& name);

}  // namespace shardrun::io::master
