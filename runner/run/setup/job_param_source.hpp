#pragma once

#include <vector>

#include "io/param_source.hpp"
#include "runner/run/setup/prepared_job.hpp"

namespace shardrun::run {

/**
 * /params and /ranges of every task of the job, as the master file stores them, computed
 * from the task space a block at a time: one column per swept parameter (int64 when every
 * value is an integer, float64 when numbers, strings otherwise). Nothing T long is held.
 */
class JobParamSource final : public io::ParamSource {
public:
    explicit JobParamSource(const PreparedJob& job);
    std::uint64_t task_count() const override { return job_.task_count(); }
    const std::vector<io::ParamColumnInfo>& columns() const override { return columns_; }
    bool has_ranges() const override { return job_.space->has_ranges(); }
    void read(std::uint64_t first, std::size_t count, std::vector<io::ParamColumn>& params,
              io::TaskRanges& ranges) const override;
    const io::ItemIds* item_ids() const override { return job_.item_ids.get(); }

private:
    const PreparedJob& job_;
    std::vector<io::ParamColumnInfo> columns_;
};

}  // namespace shardrun::run
