#pragma once

#include <cstddef>
#include <string_view>

namespace shardrun::job {

/** Levenshtein distance: the insertions, deletions and substitutions that turn `a` into `b`. */
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace shardrun::job
