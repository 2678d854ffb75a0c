#pragma once

#include <string>

namespace shardrun::io {

/**
 * Why a run ended before its summary (issue 39): the error that stopped a rank (a full disk),
 * kept as the second line of the element's lock file, under the holder's line. The lock file
 * already has its block, so a short line fits even on the full disk that stopped the run; the
 * next run's lock rewrites the file and so clears it. status and the --resume banner say it
 * instead of guessing at a kill (unfinished_run.hpp).
 */
void record_run_end_reason(const std::string& path, int array_index, const std::string& reason);

/** The reason record_run_end_reason() kept for element `array_index`, "" when none. */
std::string run_end_reason(const std::string& path, int array_index);

}  // namespace shardrun::io
