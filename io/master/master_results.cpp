// Consolidating /results: copy each winning row from its shard segment into the master.
#include <algorithm>
#include <cstring>
#include <optional>

#include "io/hdf5/field_io.hpp"
#include "io/master/master_file.hpp"
#include "io/shards/segment.hpp"

namespace shardrun::io::master {
namespace {

/** Fields whose whole [T, ...] fits this budget are assembled in memory and written once. */
constexpr std::size_t in_memory_budget = std::size_t{256} << 20;

/** A run of consecutive task ids whose rows are consecutive in their source too. */
struct Run {
    std::uint64_t first_task;
    std::uint32_t first_row;
    std::uint32_t count;
};

/** Runs of the winning rows of each source, in task order. */
std::vector<std::vector<Run>> runs_by_source(const TaskTable& table)
{
    std::vector<std::vector<Run>> runs(table.sources.size());
    for (std::uint64_t id = 0; id < table.source_of.size(); ++id) {
        const int source = table.source_of[id];
        if (source < 0) continue;
        auto& list = runs[static_cast<std::size_t>(source)];
        const auto row = table.row_of[id];
        if (!list.empty() && list.back().first_task + list.back().count == id &&
            list.back().first_row + list.back().count == row) {
            ++list.back().count;
        } else {
            list.push_back(Run{id, row, 1});
        }
    }
    return runs;
}

struct FieldTarget {
    hdf5::Dataset dataset;
    std::vector<std::byte> memory;  ///< whole [T, ...] when it fits the budget, else empty
};

std::vector<FieldTarget> open_targets(hid_t file, const std::vector<FieldSpec>& fields, std::uint64_t task_count)
{
    std::vector<FieldTarget> targets;
    std::size_t budget = in_memory_budget;
    for (const auto& field : fields) {
        FieldTarget target{SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file, ("results/" + field.name).c_str(), H5P_DEFAULT)), {}};
        const std::size_t bytes = task_count * field.bytes();
        if (bytes <= budget) {
            append_fill(target.memory, field, task_count);
            budget -= bytes;
        }
        targets.push_back(std::move(target));
    }
    return targets;
}

/** Places `count` rows from `data` at `first_task`: into memory, or straight into the file. */
void place(FieldTarget& target, const FieldSpec& field, std::uint64_t first_task, std::size_t count,
           const std::byte* data)
{
    if (!target.memory.empty()) {
        std::memcpy(target.memory.data() + first_task * field.bytes(), data, count * field.bytes());
    } else {
        hdf5::write_field_block(target.dataset.get(), field, first_task, count, data);
    }
}

void copy_single_source(hid_t source_file, const std::vector<FieldSpec>& fields, const std::vector<Run>& runs,
                        std::vector<FieldTarget>& targets)
{
    for (std::size_t f = 0; f < fields.size(); ++f) {
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(source_file, ("results/" + fields[f].name).c_str(), H5P_DEFAULT));
        for (const auto& run : runs) {
            const auto data = hdf5::read_field_block(dataset.get(), fields[f], run.first_row, run.count);
            place(targets[f], fields[f], run.first_task, run.count, data.data());
        }
    }
}

/** Copies one source's winning rows; false when its results failed verification (nothing placed). */
bool copy_source(const RowSource& source, const std::vector<FieldSpec>& fields, const std::vector<Run>& runs,
                 std::vector<FieldTarget>& targets, std::string& why)
{
    if (source.single) {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(source.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        copy_single_source(file.get(), fields, runs, targets);
        return true;
    }
    std::optional<shards::Segment> segment;
    if (source.cached_fields.empty()) {
        segment = shards::read_segment(source.file, &why, {.results = true});
        if (!segment) return false;
    }
    const auto& data = segment ? segment->rows.fields : source.cached_fields;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        for (const auto& run : runs) {
            place(targets[f], fields[f], run.first_task, run.count,
                  data[f].data() + std::size_t{run.first_row} * fields[f].bytes());
        }
    }
    return true;
}

/** Task ranges without a result, as (first, count). */
std::vector<std::pair<std::uint64_t, std::size_t>> missing_runs(const std::vector<int>& source_of)
{
    std::vector<std::pair<std::uint64_t, std::size_t>> runs;
    for (std::uint64_t id = 0; id < source_of.size(); ++id) {
        if (source_of[id] >= 0) continue;
        if (!runs.empty() && runs.back().first + runs.back().second == id) {
            ++runs.back().second;
        } else {
            runs.emplace_back(id, 1);
        }
    }
    return runs;
}

void write_fill_runs(hid_t dataset, const FieldSpec& field, const std::vector<std::pair<std::uint64_t, std::size_t>>& runs)
{
    for (const auto& [first, count] : runs) {
        std::vector<std::byte> fill;
        append_fill(fill, field, count);
        hdf5::write_field_block(dataset, field, first, count, fill.data());
    }
}

}  // namespace

void copy_results(hid_t file, const std::vector<FieldSpec>& fields, TaskTable& table)
{
    const auto task_count = table.source_of.size();
    auto targets = open_targets(file, fields, task_count);
    const auto runs = runs_by_source(table);
    for (std::size_t s = 0; s < table.sources.size(); ++s) {
        std::string why;
        if (!runs[s].empty() && !copy_source(table.sources[s], fields, runs[s], targets, why)) {
            table.drop_source(static_cast<int>(s), why);
        }
    }
    const auto missing = missing_runs(table.source_of);
    for (std::size_t f = 0; f < fields.size(); ++f) {
        if (targets[f].memory.empty()) {
            write_fill_runs(targets[f].dataset.get(), fields[f], missing);
        } else if (task_count > 0) {
            hdf5::write_field_block(targets[f].dataset.get(), fields[f], 0, task_count, targets[f].memory.data());
        }
    }
}

}  // namespace shardrun::io::master
