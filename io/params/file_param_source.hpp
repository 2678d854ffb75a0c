#pragma once

#include <hdf5.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "io/hdf5/handle.hpp"
#include "io/param_source.hpp"

namespace shardrun::io {

/**
 * The columns `names` of /params (and /ranges when present) of a params.h5 or a master,
 * read a block at a time from the file, which stays open while the source lives.
 * @throws OutputError when the file or a column cannot be read
 */
class FileParamSource final : public ParamSource {
public:
    FileParamSource(const std::filesystem::path& file, const std::vector<std::string>& names);
    std::uint64_t task_count() const override { return task_count_; }
    const std::vector<ParamColumnInfo>& columns() const override { return columns_; }
    bool has_ranges() const override { return static_cast<bool>(ranges_start_); }
    void read(std::uint64_t first, std::size_t count, std::vector<ParamColumn>& params,
              TaskRanges& ranges) const override;
    const ItemIds* item_ids() const override { return item_ids_ ? &*item_ids_ : nullptr; }

private:
    std::optional<ItemIds> item_ids_;  ///< params.h5's /item_ids (data.id), when written
    std::filesystem::path path_;
    hdf5::File file_;
    std::vector<hdf5::Dataset> datasets_;
    hdf5::Dataset ranges_start_;
    hdf5::Dataset ranges_end_;
    std::vector<ParamColumnInfo> columns_;
    std::uint64_t task_count_ = 0;
};

}  // namespace shardrun::io
