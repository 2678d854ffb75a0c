#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "io/output_spec.hpp"
#include "io/result_sink.hpp"
#include "io/shards/segment.hpp"
#include "io/shards/segment_writer.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::shards {

/**
 * @internal layout shards: one rank's sink. record() buffers rows in memory; commit()
 * writes them as the next segment of <path>.shards/a<index>/r<rank>/ (write-then-rename),
 * so a kill at any instant leaves every earlier commit intact and the torn one invisible.
 */
class ShardSink : public ResultSink {
public:
    ShardSink(const OutputOptions& options, const JobMetadata& metadata, std::vector<FieldSpec> fields, int rank);

    void record_locked(const TaskRecord& record, const TaskValues& values) override;
    void commit_locked() override;

private:
    SegmentWriter& writer();  ///< the batch's segment writer (made at the batch's first record)

    std::filesystem::path dir_;
    SegmentHeader header_;
    std::vector<FieldSpec> fields_;
    std::size_t auto_commit_bytes_;
    std::size_t buffered_bytes_ = 0;
    TaskRows buffer_;  ///< the batch: /tasks rows and the small fields (large rows go straight to the writer)
    std::optional<SegmentWriter> writer_;  ///< the batch's segment, open from its first large row
};

}  // namespace shardrun::io::shards
