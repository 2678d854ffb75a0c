// TaskStream: the final row of every task, a block of ids at a time, in bounded memory.
#include "io/gather/task_stream.hpp"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <numeric>

#include "io/errors.hpp"
#include "io/gather/task_stream_sources.hpp"
#include "io/hdf5/column_blocks.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
using namespace stream;

namespace {

/** Where the winning row's results are: a loaded segment (its rows read or mapped) or a single file's rows, and a row there. */
struct Winner {
    const shards::Segment* segment = nullptr;
    const TaskRows* rows = nullptr;
    std::size_t row = 0;

    explicit operator bool() const noexcept { return rows != nullptr; }
    const std::byte* bytes(std::size_t f, std::size_t size) const
    {
        return segment != nullptr ? segment->row(f, row) : rows->fields[f].data() + row * size;
    }
};

/** The row-winner rule (TaskRows::take_if_better); the winner's values are read from `from`. */
void take(TaskRows& block, std::vector<Winner>& winners, std::size_t k, const TaskRows& from, std::size_t i,
          const shards::Segment* segment = nullptr)
{
    if (block.take_if_better(k, from, i)) winners[k] = Winner{segment, &from, i};
}

/** Takes the rows of `loaded` with ids in [b, e), advancing its cursor past them. */
void take_segment(Loaded& loaded, std::uint64_t b, std::uint64_t e, TaskRows& block, std::vector<Winner>& winners)
{
    const auto& rows = loaded.segment.rows;
    for (; loaded.cursor < loaded.order.size(); ++loaded.cursor) {
        const auto i = loaded.order[loaded.cursor];
        const auto id = rows.task_id[i];
        if (id >= e) break;
        if (id >= b && id >= loaded.lo && id < loaded.hi) take(block, winners, id - b, rows, i, &loaded.segment);
    }
}

}  // namespace

TaskStream::TaskStream(std::uint64_t first, std::uint64_t end, std::vector<FieldSpec> fields, Reads reads)
    : impl_(std::make_unique<Impl>())
{
    const bool with_fields = reads == Reads::with_results;
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

void TaskStream::reference_fields(std::vector<bool> by_reference) { impl_->by_reference = std::move(by_reference); }

const std::vector<const std::byte*>& TaskStream::row_refs(std::size_t column) const { return impl_->refs.at(column); }

const std::vector<std::string>& TaskStream::problems() const noexcept { return impl_->problems; }

const std::vector<fs::path>& TaskStream::invalid_segments() const noexcept { return impl_->invalid; }

bool TaskStream::next(TaskRows& block)
{
    auto& s = *impl_;
    // Dropped only now: the last block's refs pointed into them until this call.
    s.active.remove_if([](const Loaded& loaded) { return loaded.cursor >= loaded.order.size(); });
    s.single_rows.clear();
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
    auto& single_rows = s.single_rows;
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
        s.refs.resize(s.kept.size());
        for (std::size_t column = 0; column < s.kept.size(); ++column) {
            const auto f = s.kept[column];
            const auto bytes = s.fields[f].bytes();
            if (column < s.by_reference.size() && s.by_reference[column]) {
                auto& refs = s.refs[column];
                refs.assign(n, nullptr);
                for (std::size_t k = 0; k < n; ++k) {
                    if (winners[k]) refs[k] = winners[k].bytes(f, bytes);
                }
                continue;
            }
            auto& out = block.fields[column];
            out.reserve(n * bytes);
            // One pass: a run of rows without a result takes the fill value, the others their bytes.
            for (std::size_t k = 0; k < n;) {
                if (!winners[k]) {
                    auto j = k;
                    while (j < n && !winners[j]) ++j;
                    append_fill(out, s.fields[f], j - k);
                    k = j;
                    continue;
                }
                const auto* from = winners[k].bytes(f, bytes);
                out.insert(out.end(), from, from + bytes);
                ++k;
            }
        }
    } else {
        block.fields.clear();
    }
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
