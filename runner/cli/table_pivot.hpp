#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

/**
 * `shardrun table --pivot PARAM --value FIELD`: the values of one param become columns.
 * One row per combination of the other params (in task order), then one column
 * `<value>_<FIELD>` per value of PARAM (in task order), then `speedup` = the first of them
 * divided by the second when PARAM takes exactly two values: for times swept over
 * `device: [cpu, cuda]`, how many times faster the GPU is. A cell whose task has no result
 * (failed, or not run yet) is missing, and so is a speedup without both cells.
 * @param rows  the tasks to use, in order (what --where kept)
 * @throws UsageError  PARAM is not a param column, FIELD is not a number column, or two of
 *                     the tasks fall in one cell (it names both and points to --where)
 */
io::ResultsTable pivot_table(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                             const std::string& pivot, const std::string& value);

}  // namespace shardrun::cli
