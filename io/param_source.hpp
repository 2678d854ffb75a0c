#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/item_ids.hpp"
#include "io/output_spec.hpp"

namespace shardrun::io {

/** The stored type of a /params column. */
enum class ParamType { int64, float64, text };

struct ParamColumnInfo {
    std::string name;
    ParamType type = ParamType::int64;
};

/**
 * The /params and /ranges columns of T tasks, handed out a block of rows at a time, so that
 * writing them (master, params.h5) takes memory bounded by the block, not by T.
 */
class ParamSource {
public:
    virtual ~ParamSource() = default;
    virtual std::uint64_t task_count() const = 0;
    virtual const std::vector<ParamColumnInfo>& columns() const = 0;
    virtual bool has_ranges() const = 0;
    /**
     * Rows [first, first + count): `params` gets one column per columns() entry, in that
     * order and of that type, `count` values each; `ranges` gets `count` starts and ends
     * when has_ranges(), none otherwise.
     */
    virtual void read(std::uint64_t first, std::size_t count, std::vector<ParamColumn>& params,
                      TaskRanges& ranges) const = 0;
    /** The input records' ids (data.id), which label the `item` dimension; nullptr: none. */
    virtual const ItemIds* item_ids() const { return nullptr; }
};

/** Columns already in memory (tests, benchmarks, small jobs); refers to them, no copy. */
class ColumnsParamSource final : public ParamSource {
public:
    ColumnsParamSource(const std::vector<ParamColumn>& params, const TaskRanges& ranges);
    std::uint64_t task_count() const override { return task_count_; }
    const std::vector<ParamColumnInfo>& columns() const override { return columns_; }
    bool has_ranges() const override { return !ranges_.start.empty(); }
    void read(std::uint64_t first, std::size_t count, std::vector<ParamColumn>& params,
              TaskRanges& ranges) const override;

private:
    const std::vector<ParamColumn>& params_;
    const TaskRanges& ranges_;
    std::vector<ParamColumnInfo> columns_;
    std::uint64_t task_count_ = 0;
};

/** Empties `params` and `ranges`, then gives `params` one empty column per entry of `columns`. */
void start_block(const std::vector<ParamColumnInfo>& columns, std::vector<ParamColumn>& params, TaskRanges& ranges);

}  // namespace shardrun::io
