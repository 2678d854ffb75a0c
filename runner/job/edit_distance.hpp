#pragma once

#include <cstddef>
#include <string_view>

namespace shardrun::job {

/**
 * Optimal string alignment distance: the insertions, deletions, substitutions and swaps of two
 * adjacent characters that turn `a` into `b` (a swap counts one edit, as typing makes it:
 * float46 is one edit from float64 and two from float32).
 */
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace shardrun::job
