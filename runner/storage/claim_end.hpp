#pragma once

#include <string>

namespace shardrun::storage {

/**
 * A bucket's writer claim (writer_claim.hpp) says why its run ended when a rank kept the error
 * (WriterClaim::keep_end: a full disk); io's readers, `status` and the --resume banner
 * (io/read/unfinished_run.hpp), read that from the element's lock file beside a local output.
 * This writes the claim `claim_text` as that lock file of the local copy or mirror at
 * `output_path`: the run's line, then its error (io/layout/run_end_reason.hpp). Nothing when the
 * claim names no error or its run released it. Best effort.
 */
void claim_end_to_lock(const std::string& claim_text, const std::string& output_path, int array_index);

}  // namespace shardrun::storage
