// TaskStream: the final row of every task, a block of ids at a time, in bounded memory.
#include "io/read/task_stream.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <list>
#include <numeric>
#include <optional>

#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/master/item_rows.hpp"
#include "io/output/output_layout.hpp"
#include "io/shards/segment.hpp"
#include "io/tasks/tasks_group.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

struct SegmentRef {
    fs::path file;
    shards::SegmentSpan span;
    std::uint64_t lo, hi;  ///< ids of its element
    std::size_t ordinal;   ///< order of discovery: on a tie the later source wins, as in TaskTable
};

/** A verified segment in use, with its rows in id order. */
struct Loaded {
    shards::Segment segment;
    std::vector<std::uint32_t> order;
    std::size_t cursor = 0;
    std::uint64_t lo, hi;
    std::size_t ordinal;
};

struct SingleRef {
    fs::path file;
    std::uint64_t lo, hi;
    std::size_t ordinal;
    std::optional<hdf5::File> handle;
    std::unique_ptr<master::ItemRowsReader> items;  ///< of `handle`, made with it
};

/** Where the winning row's results are: a source's field columns and a row there. */
struct Winner {
    const std::vector<std::vector<std::byte>>* fields = nullptr;
    std::size_t row = 0;
};

/** The row-winner rule (TaskRows::take_if_better); the winner's values are read from `from`. */
void take(TaskRows& block, std::vector<Winner>& winners, std::size_t k, const TaskRows& from, std::size_t i)
{
    if (block.take_if_better(k, from, i)) winners[k] = Winner{&from.fields, i};
}

/** Takes the rows of `loaded` with ids in [b, e), advancing its cursor past them. */
void take_segment(Loaded& loaded, std::uint64_t b, std::uint64_t e, TaskRows& block, std::vector<Winner>& winners)
{
    const auto& rows = loaded.segment.rows;
    for (; loaded.cursor < loaded.order.size(); ++loaded.cursor) {
        const auto i = loaded.order[loaded.cursor];
        const auto id = rows.task_id[i];
        if (id >= e) break;
        if (id >= b && id >= loaded.lo && id < loaded.hi) take(block, winners, id - b, rows, i);
    }
}

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

bool same_fields(const std::vector<FieldSpec>& a, const std::vector<FieldSpec>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t f = 0; f < a.size(); ++f) {
        if (a[f].name != b[f].name || a[f].bytes() != b[f].bytes()) return false;
    }
    return true;
}

}  // namespace

struct TaskStream::Impl {
    std::uint64_t first = 0, end = 0, cursor = 0;
    std::vector<FieldSpec> fields;
    std::vector<std::size_t> kept;  ///< the fields delivered (select_fields), indexes into `fields`
    bool with_fields = true;
    std::size_t block_rows = stream_block_rows();
    std::vector<SegmentRef> segments;
    bool sorted = false;
    std::size_t next_segment = 0;
    std::list<Loaded> active;
    std::vector<SingleRef> singles;
    std::size_t sources = 0;
    std::vector<std::string> problems;
    std::vector<fs::path> invalid;

    /** Loads and verifies a segment into the active set (kept in discovery order), or records why not. */
    void load(const SegmentRef& ref);
};

TaskStream::TaskStream(std::uint64_t first, std::uint64_t end, std::vector<FieldSpec> fields, bool with_fields)
    : impl_(std::make_unique<Impl>())
{
    impl_->first = impl_->cursor = block_first_ = first;
    impl_->end = std::max(first, end);
    impl_->fields = std::move(fields);
    impl_->kept.resize(impl_->fields.size());
    std::iota(impl_->kept.begin(), impl_->kept.end(), std::size_t{0});
    impl_->with_fields = with_fields;
    if (with_fields) {
        // A block's results fit block_bytes(): a master written from larger blocks has the
        // kernel throttle its one huge write to the disk's pace (dirty-page limits) instead
        // of writing back each block while the next is read (master_stream.cpp).
        std::size_t row_bytes = 0;
        for (const auto& field : impl_->fields) row_bytes += field.bytes();
        const auto rows = block_bytes() / std::max<std::size_t>(1, row_bytes);
        impl_->block_rows = std::clamp<std::size_t>(rows, 1, impl_->block_rows);
    }
}

TaskStream::~TaskStream() = default;

void TaskStream::select_fields(std::vector<std::size_t> kept)
{
    for (const auto f : kept) {
        if (f >= impl_->fields.size()) SHARDRUN_THROW(OutputError, "select_fields: no field " + std::to_string(f));
    }
    impl_->kept = std::move(kept);
}

const std::vector<std::string>& TaskStream::problems() const noexcept { return impl_->problems; }

const std::vector<fs::path>& TaskStream::invalid_segments() const noexcept { return impl_->invalid; }

void TaskStream::add_element(const std::string& path, int array_index, std::uint64_t first, std::uint64_t end)
{
    for (const int rank : layout::rank_indexes(path, array_index)) {
        for (const auto& file : layout::segments(layout::rank_dir(path, array_index, rank))) {
            std::string why;
            const auto span = shards::read_segment_span(file, &why);
            if (!span) {
                impl_->problems.push_back(file.string() + ": " + why + "; its tasks are treated as not committed");
                impl_->invalid.push_back(file);
                continue;
            }
            if (span->rows == 0 || span->last_id < first || span->first_id >= end) continue;
            impl_->segments.push_back(SegmentRef{file, *span, first, end, impl_->sources++});
        }
    }
    const auto single = layout::single_path(path, array_index);
    if (fs::exists(single)) add_single(single, first, end);
}

void TaskStream::add_single(const fs::path& file, std::uint64_t first, std::uint64_t end)
{
    hdf5::silence_hdf5_errors();
    try {
        auto h5 = SHARDRUN_H5_OPEN(File, H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const std::uint64_t rows = tasks_group_rows(h5.get());
        impl_->singles.push_back(SingleRef{file, first, std::min(end, rows), impl_->sources++, std::move(h5)});
    } catch (const Hdf5Error& error) {
        impl_->problems.push_back(file.string() + ": " + error.what() + "; its tasks are treated as not committed");
    }
}

void TaskStream::Impl::load(const SegmentRef& ref)
{
    auto& s = *this;
    std::string why;
    auto segment = shards::read_segment(ref.file, &why, s.with_fields);
    if (segment && s.with_fields && !s.fields.empty() && !same_fields(segment->fields, s.fields)) {
        segment.reset();
        why = "its result fields differ from the job's";
    }
    if (!segment) {
        problems.push_back(ref.file.string() + ": " + why + "; its tasks are treated as not committed");
        invalid.push_back(ref.file);
        return;
    }
    Loaded loaded{std::move(*segment), {}, 0, ref.lo, ref.hi, ref.ordinal};
    const auto& ids = loaded.segment.rows.task_id;
    loaded.order.resize(ids.size());
    std::iota(loaded.order.begin(), loaded.order.end(), 0u);
    std::stable_sort(loaded.order.begin(), loaded.order.end(), [&](auto x, auto y) { return ids[x] < ids[y]; });
    const auto at = std::find_if(s.active.begin(), s.active.end(), [&](const Loaded& other) { return other.ordinal > ref.ordinal; });
    s.active.insert(at, std::move(loaded));
}

bool TaskStream::next(TaskRows& block)
{
    auto& s = *impl_;
    if (!s.sorted) {
        std::stable_sort(s.segments.begin(), s.segments.end(),
                         [](const SegmentRef& a, const SegmentRef& b) { return a.span.first_id < b.span.first_id; });
        s.sorted = true;
    }
    if (s.cursor >= s.end) return false;
    const auto b = s.cursor;
    const auto e = std::min<std::uint64_t>(b + s.block_rows, s.end);
    const auto n = static_cast<std::size_t>(e - b);
    block.assign_pending(b, n);
    std::vector<Winner> winners(n);

    // Load every segment whose first id falls before the end of this block, verified whole.
    for (; s.next_segment < s.segments.size() && s.segments[s.next_segment].span.first_id < e; ++s.next_segment) {
        s.load(s.segments[s.next_segment]);
    }
    // Sources in the order they were found: which of two equal rows wins is TaskTable's choice.
    std::list<TaskRows> single_rows;
    auto active = s.active.begin();
    auto single = s.singles.begin();
    while (active != s.active.end() || single != s.singles.end()) {
        if (single == s.singles.end() || (active != s.active.end() && active->ordinal < single->ordinal)) {
            take_segment(*active++, b, e, block, winners);
            continue;
        }
        const auto lo = std::max(b, single->lo), hi = std::min(e, single->hi);
        if (lo < hi) {
            if (!single->handle) single->handle = SHARDRUN_H5_OPEN(File, H5Fopen(single->file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
            if (!single->items) single->items = std::make_unique<master::ItemRowsReader>(single->handle->get());
            std::vector<bool> wanted(s.fields.size(), false);
            for (const auto f : s.kept) wanted[f] = true;
            const auto& rows = single_rows.emplace_back(read_single_rows(single->handle->get(), *single->items, lo,
                                                                         static_cast<std::size_t>(hi - lo), s.fields,
                                                                         wanted, s.with_fields));
            for (std::size_t i = 0; i < rows.size(); ++i) take(block, winners, lo - b + i, rows, i);
        }
        ++single;
    }

    if (s.with_fields) {
        block.fields.assign(s.kept.size(), {});
        for (std::size_t column = 0; column < s.kept.size(); ++column) {
            const auto f = s.kept[column];
            const auto bytes = s.fields[f].bytes();
            auto& out = block.fields[column];
            out.reserve(n * bytes);
            // One pass: a run of rows without a result takes the fill value, the others their bytes.
            for (std::size_t k = 0; k < n;) {
                if (!winners[k].fields) {
                    auto j = k;
                    while (j < n && !winners[j].fields) ++j;
                    append_fill(out, s.fields[f], j - k);
                    k = j;
                    continue;
                }
                const auto* from = (*winners[k].fields)[f].data() + winners[k].row * bytes;
                out.insert(out.end(), from, from + bytes);
                ++k;
            }
        }
    } else {
        block.fields.clear();
    }
    s.active.remove_if([](const Loaded& loaded) { return loaded.cursor >= loaded.order.size(); });
    block_first_ = b;
    s.cursor = e;
    return true;
}

void StatusCounts::add(const TaskRows& block)
{
    for (const auto status : block.status) {
        switch (static_cast<TaskStatus>(status)) {
        case TaskStatus::ok: ++ok; break;
        case TaskStatus::failed: ++failed; break;
        case TaskStatus::skipped: ++skipped; break;
        default: ++pending; break;
        }
    }
}

StatusCounts count_statuses(TaskStream& stream)
{
    StatusCounts counts;
    TaskRows block;
    while (stream.next(block)) counts.add(block);
    return counts;
}

std::size_t block_bytes() { return std::size_t{32} << 20; }

std::size_t stream_block_rows()
{
    if (const char* text = std::getenv("SHARDRUN_STREAM_BLOCK_ROWS")) {
        const long rows = std::strtol(text, nullptr, 10);
        if (rows > 0) return static_cast<std::size_t>(rows);
    }
    return 65536;
}

}  // namespace shardrun::io
