#pragma once

#include <functional>
#include <string>

#include "io/read/results_table.hpp"

namespace shardrun::cli {

/**
 * The SECONDS of `table --watch`: a number above 0 (fractions allowed, e.g. 0.5).
 * @throws UsageError  one line naming the option, the value and what is allowed
 */
double parse_watch_seconds(const std::string& text);

/**
 * `table --watch`: while a run writes `path`, prints `running: N of T committed` and the
 * table `render` makes of a snapshot of its committed rows, every `seconds` (the screen is
 * cleared first when stdout is a terminal); when no run writes it (any more), prints
 * "run ended: PATH" (when it printed a snapshot) and calls `final_table` (plain `table`),
 * whose exit code it returns.
 * SIGINT or SIGTERM stop the watching between snapshots: exit 0, and no snapshot is left behind.
 */
int watch_table(const std::string& path, double seconds, const std::function<std::string(const io::ResultsTable&)>& render,
                const std::function<int()>& final_table);

}  // namespace shardrun::cli
