#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

/**
 * `shardrun table --pivot PARAM --value FIELD`: the values of one param become columns.
 * One row per combination of the other params (in task order), then one column
 * `<value>_<FIELD>` per value of PARAM (in task order), then a ratio column named for what it
 * divides, `A/B` (A's FIELD / B's). `ratio` "A/B" picks the two values; when it is empty and PARAM
 * takes exactly two values, the ratio says how many times better the second is than the first:
 * first/second for a time-like FIELD (seconds, *_seconds, *_time, *_s, *_ms: less is better),
 * second/first for any other (gflops). With `device: [cpu, cuda]` both read "the GPU's speedup":
 * `cpu/cuda` of seconds, `cuda/cpu` of gflops. A cell whose task has no result (failed, or not
 * run yet) is missing, and so is a ratio without both cells.
 * @param rows  the tasks to use, in order (what --where kept)
 * @throws UsageError  PARAM is not a param column, FIELD is not a number column, `ratio` does not
 *                     name two values of PARAM, or two of the tasks fall in one cell (it names
 *                     both and points to --where)
 */
io::ResultsTable pivot_table(const io::ResultsTable& table, const std::vector<std::size_t>& rows,
                             const std::string& pivot, const std::string& value, const std::string& ratio = "");

}  // namespace shardrun::cli
