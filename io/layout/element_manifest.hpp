#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/gpu_check_row.hpp"
#include "io/output_spec.hpp"
#include "io/result_types.hpp"

namespace shardrun::io {

/**
 * @internal <path>.shards/a<index>/element.json: what an array element stored about its
 * job so that merge and status work from the shards alone. Written by prepare_output
 * (finished == 0) and rewritten by finalize_output.
 */
struct ElementManifest {
    JobMetadata metadata;
    std::string job_hash;
    Layout layout = Layout::shards;
    double created = 0;   ///< seconds since the epoch, first run of this element
    double finished = 0;  ///< 0 until finalize_output
    /**
     * When its last run ended in order without finishing (a drain or stop, exit 3 or 4, after its
     * summary; record_stopped_run); 0 while a run goes on or after one that was killed.
     */
    double stopped = 0;
    bool complete = false;  ///< every task of the element has a final status
    /**
     * The master <path> holds every row this element committed before this was set; its
     * segments may be gone (io/output/consolidation.hpp). Sticky: only --force clears it.
     */
    bool consolidated = false;
    std::vector<FieldSpec> fields;
    /** Per rank of its last finished run: exec workers' load (spawn to ready), 0 without workers. */
    std::vector<double> rank_startup_seconds;
    /** GPUs quarantined during the last run, one line each ("rank 0: quarantined GPU cuda:0 (UUID ...) on ..."). */
    std::vector<std::string> quarantined;
    /** The GPUs' admission checks of the last run (issue 38): the master's /gpus. */
    std::vector<GpuCheckRow> gpus;
};

/** Reads the manifest of element `array_index`; nullopt when absent. @throws OutputError when unreadable */
std::optional<ElementManifest> read_manifest(const std::string& path, int array_index);
/** Writes it durably (temp + rename). */
void write_manifest(const std::string& path, const ElementManifest& manifest);

/** Seconds since the Unix epoch, now. */
double now_seconds();
/** "2026-11-21T23:45:00Z". */
std::string iso8601_utc(double seconds);

}  // namespace shardrun::io
