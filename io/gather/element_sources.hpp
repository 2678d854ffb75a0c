#pragma once

// @internal What the two front ends of the row gatherer share: TaskStream (a block of ids at a
// time, io/gather/task_stream.hpp) and TaskTable (the whole table, io/gather/task_table.hpp)
// walk an element's committed sources in this one order, which decides the winner of a tie (the
// later source), and say in one form that a source was skipped.
#include <filesystem>
#include <functional>
#include <string>

namespace shardrun::io {

/**
 * Calls `segment` for every committed segment of element `array_index`, rank folder by rank
 * folder and in commit order within one, then `single` for its single-layout file when it has one.
 */
void for_each_element_source(const std::string& path, int array_index,
                             const std::function<void(const std::filesystem::path&)>& segment,
                             const std::function<void(const std::filesystem::path&)>& single);

/** "<file>: <why>; its tasks are treated as not committed": the problem line of a skipped source. */
std::string not_committed(const std::filesystem::path& file, const std::string& why);

}  // namespace shardrun::io
