// Where a TaskStream's rows come from: the segments and single-layout files of an output,
// found and loaded (task_stream_sources.hpp), opened and checked by the gatherer's core
// (row_gatherer.hpp) as TaskTable's are.
#include "io/gather/task_stream_sources.hpp"

#include <algorithm>
#include <numeric>

#include "io/errors.hpp"
#include "io/gather/row_gatherer.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/layout/output_layout.hpp"
#include "io/task_rows/tasks_group.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace stream {

/**
 * Rows [first, first + n) of a single-layout file's /tasks (and /results). A master's fields
 * over items come back per task through `items`, padded as the shards held them.
 */
TaskRows read_single_rows(hid_t file, master::ItemRowsReader& items, std::uint64_t first, std::size_t n,
                          const std::vector<FieldSpec>& fields, const std::vector<bool>& wanted, bool with_fields)
{
    auto rows = read_tasks_group(file, first, n);
    if (!with_fields) return rows;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        const auto& field = fields[f];
        // A field not selected keeps its place (the block's column f), empty: never read.
        if (!wanted[f]) {
            rows.fields.emplace_back();
            continue;
        }
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(file, ("results/" + field.name).c_str(), H5P_DEFAULT));
        rows.fields.push_back(field.item_rows && master::ItemRowsReader::assembled(dataset.get())
                                  ? items.read(dataset.get(), field, first, n)
                                  : hdf5::read_field_block(dataset.get(), field, first, n));
    }
    return rows;
}

}  // namespace stream

using namespace stream;

void TaskStream::add_element(const std::string& path, int array_index, std::uint64_t first, std::uint64_t end)
{
    const auto segment = [&](const fs::path& file) {
        const auto span = open_segment_span(file, impl_->skipped());
        if (!span) return;
        if (span->rows == 0 || span->last_id < first || span->first_id >= end) return;
        impl_->segments.push_back(SegmentRef{file, *span, first, end, impl_->sources++});
    };
    for_each_element_source(path, array_index, segment, [&](const fs::path& single) { add_single(single, first, end); });
}

void add_element_rows(TaskStream& stream, const std::string& path, int array_index, bool consolidated,
                      std::uint64_t first, std::uint64_t end)
{
    stream.add_element(path, array_index, first, end);
    // A single-layout master that --resume moved back to its slot is read there, by add_element.
    if (consolidated && !fs::exists(layout::single_path(path, array_index))) {
        require_consolidated_master(path);
        stream.add_single(path, first, end);
    }
}

void TaskStream::add_single(const fs::path& file, std::uint64_t first, std::uint64_t end)
{
    open_single(file, impl_->skipped(), [&](hdf5::File& h5, std::uint64_t rows) {
        impl_->singles.push_back(SingleRef{file, first, std::min(end, rows), impl_->sources++, std::move(h5)});
    });
}

void TaskStream::Impl::load(const SegmentRef& ref)
{
    auto& s = *this;
    // Large rows mapped, not read: the master copies them from the page cache (segment_mapping.hpp).
    auto segment = open_segment(ref.file, skipped(), {.results = s.with_fields, .map_rows = true},
                                s.with_fields ? &s.fields : nullptr);
    if (!segment) return;
    Loaded loaded{std::move(*segment), {}, 0, ref.lo, ref.hi, ref.ordinal};
    const auto& ids = loaded.segment.rows.task_id;
    loaded.order.resize(ids.size());
    std::iota(loaded.order.begin(), loaded.order.end(), 0u);
    std::stable_sort(loaded.order.begin(), loaded.order.end(), [&](auto x, auto y) { return ids[x] < ids[y]; });
    const auto at = std::find_if(s.active.begin(), s.active.end(), [&](const Loaded& other) { return other.ordinal > ref.ordinal; });
    s.active.insert(at, std::move(loaded));
}

}  // namespace shardrun::io
