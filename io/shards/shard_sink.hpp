#pragma once

#include <filesystem>
#include <vector>

#include "io/output_spec.hpp"
#include "io/result_sink.hpp"
#include "io/shards/segment.hpp"
#include "io/tasks/task_rows.hpp"

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
    std::filesystem::path dir_;
    SegmentHeader header_;
    std::vector<FieldSpec> fields_;
    std::size_t auto_commit_bytes_;
    std::size_t buffered_bytes_ = 0;
    TaskRows buffer_;
};

}  // namespace shardrun::io::shards
