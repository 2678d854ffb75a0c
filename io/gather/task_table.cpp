#include "io/gather/task_table.hpp"

#include <algorithm>

#include "io/gather/row_gatherer.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/shards/segment.hpp"
#include "io/task_rows/tasks_group.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
TaskTable::TaskTable(std::uint64_t first, std::uint64_t end)
    : first_id(first), source_of(end > first ? end - first : 0, -1), row_of(source_of.size(), 0)
{
    rows.assign_pending(first, source_of.size());
}

SkippedSources TaskTable::skipped() { return SkippedSources{problems, invalid_segments}; }

void TaskTable::take(const TaskRows& from, std::size_t i, int source, std::uint32_t row)
{
    if (!covers(from.task_id[i])) return;
    const auto id = from.task_id[i] - first_id;
    if (!rows.take_if_better(id, from, i)) return;
    source_of[id] = source;
    row_of[id] = row;
}

void TaskTable::gather_element(const std::string& path, int array_index, std::uint64_t first, std::uint64_t end)
{
    const auto gather_segment = [&](const fs::path& file) {
        auto segment = open_segment(file, skipped(), {.results = verify_results || cached_bytes_ < cache_budget});
        if (!segment) return;
        if (fields.empty()) fields = segment->fields;
        const int source = static_cast<int>(sources.size());
        sources.push_back(RowSource{file, false, {}});
        std::size_t bytes = 0;
        for (const auto& field : segment->rows.fields) bytes += field.size();
        if (!segment->rows.fields.empty() && cached_bytes_ + bytes <= cache_budget) {
            cached_bytes_ += bytes;
            sources.back().cached_fields = std::move(segment->rows.fields);
        }
        for (std::size_t i = 0; i < segment->rows.size(); ++i) {
            const auto id = segment->rows.task_id[i];
            if (id >= first && id < end) take(segment->rows, i, source, static_cast<std::uint32_t>(i));
        }
    };
    for_each_element_source(path, array_index, gather_segment,
                            [&](const fs::path& single) { gather_single(single, first, end); });
}

void TaskTable::gather_single(const fs::path& file, std::uint64_t first, std::uint64_t end)
{
    open_single(file, skipped(), [&](hdf5::File& h5, std::uint64_t rows) {
        const auto from = read_tasks_group(h5.get(), 0, rows);
        if (fields.empty()) {
            auto results = SHARDRUN_H5_OPEN(Group, H5Gopen2(h5.get(), "results", H5P_DEFAULT));
            for (const auto& name : hdf5::read_string_list_attr(h5.get(), "fields")) {
                fields.push_back(hdf5::field_spec_of(results.get(), name));
            }
        }
        const int source = static_cast<int>(sources.size());
        sources.push_back(RowSource{file, true, {}});
        for (std::uint64_t id = first; id < end && id < from.size(); ++id) {
            take(from, id, source, static_cast<std::uint32_t>(id));
        }
    });
}

void TaskTable::drop_source(int source, const std::string& why)
{
    problems.push_back(sources[static_cast<std::size_t>(source)].file.string() + ": " + why +
                       "; its tasks are left pending (rerun with --resume)");
    for (std::size_t id = 0; id < source_of.size(); ++id) {
        if (source_of[id] != source) continue;
        source_of[id] = -1;
        rows.status[id] = static_cast<std::int8_t>(TaskStatus::pending);
    }
}

std::uint64_t TaskTable::count(std::int8_t status, std::uint64_t first, std::uint64_t end) const
{
    std::uint64_t n = 0;
    for (auto id = std::max(first, first_id); id < end && covers(id); ++id) n += rows.status[id - first_id] == status;
    return n;
}

}  // namespace shardrun::io
