// Data-chunk fields as one array over items in the master, and back for --resume.
#include "io/task_rows/item_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/column_blocks.hpp"
#include "io/hdf5/columns.hpp"
#include "io/hdf5/dimension_scales.hpp"
#include "io/hdf5/field_io.hpp"
#include "io/hdf5/handle.hpp"
#include "io/hdf5/types.hpp"
#include "io/task_rows/item_id_column.hpp"
#include "io/task_rows/task_rows.hpp"

namespace shardrun::io::master {
namespace {

/** Rows of every task (end - start, at most the chunk) and where they start among the items. */
struct ItemLayout {
    std::vector<std::uint64_t> rows, offset;
    std::uint64_t total = 0;
};

/** A task's rows: its range, at most the chunk. */
std::uint64_t rows_of(std::int64_t start, std::int64_t end, std::uint64_t chunk)
{
    return end > start ? std::min<std::uint64_t>(chunk, static_cast<std::uint64_t>(end - start)) : 0;
}

ItemLayout item_layout(hid_t file, std::uint64_t chunk)
{
    const auto start = hdf5::read_column<std::int64_t>(file, "ranges/start", H5T_NATIVE_INT64);
    const auto end = hdf5::read_column<std::int64_t>(file, "ranges/end", H5T_NATIVE_INT64);
    ItemLayout layout;
    for (std::size_t t = 0; t < start.size() && t < end.size(); ++t) {
        const auto rows = rows_of(start[t], end[t], chunk);
        layout.rows.push_back(rows);
        layout.offset.push_back(layout.total);
        layout.total += rows;
    }
    return layout;
}

/** The spec of one item row: the field without its chunk axis. */
FieldSpec row_spec(FieldSpec field)
{
    field.shape.erase(field.shape.begin());
    field.item_rows = false;
    return field;
}

hdf5::Dataset create_field(hid_t group, const std::string& name, const FieldSpec& spec, std::uint64_t rows)
{
    const auto dims = hdf5::field_dims(spec, rows);
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    const auto dcpl = hdf5::field_creation_properties(spec);
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dcreate2(group, name.c_str(), hdf5::native_type(spec.dtype), space.get(),
                                                        H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
    if (!spec.units.empty()) hdf5::write_attr(dataset.get(), "units", spec.units);
    if (spec.dtype == DType::boolean) hdf5::mark_bool_field(dataset.get());
    return dataset;
}

/** Tasks [first, end) whose padded rows fit `budget` bytes (at least one). */
std::size_t block_end(std::size_t first, std::size_t tasks, std::size_t task_bytes, std::size_t budget)
{
    return std::min(tasks, first + std::max<std::size_t>(1, budget / std::max<std::size_t>(1, task_bytes)));
}

/** Packs tasks [first, end) of a padded buffer in place: each task's rows follow the previous task's. */
std::size_t pack(std::byte* data, const ItemLayout& layout, std::size_t first, std::size_t end, std::size_t task_bytes,
                 std::size_t row_bytes)
{
    std::size_t packed = 0;
    for (auto t = first; t < end; ++t) {
        // Forward only: a task's packed place never lies after its padded place.
        std::memmove(data + packed, data + (t - first) * task_bytes, layout.rows[t] * row_bytes);
        packed += layout.rows[t] * row_bytes;
    }
    return packed;
}

/** Replaces `old_name` in `group` by `new_name`, detaching the old one's dimensions first. */
void replace(hid_t group, const std::string& old_name, const std::string& new_name)
{
    {
        auto old = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, old_name.c_str(), H5P_DEFAULT));
        hdf5::detach_dimension_scales(old.get());
    }
    SHARDRUN_H5_CHECK(H5Ldelete(group, old_name.c_str(), H5P_DEFAULT));
    if (new_name != old_name) SHARDRUN_H5_CHECK(H5Lmove(group, new_name.c_str(), group, old_name.c_str(), H5P_DEFAULT, H5P_DEFAULT));
}

/** CF's _FillValue (the dataset's fill value), so xarray masks the rows of tasks without a result. */
void write_fill_attr(hid_t dataset, const FieldSpec& row)
{
    if (SHARDRUN_H5_CHECK(H5Aexists(dataset, "_FillValue")) > 0) return;
    if (row.dtype == DType::boolean) return;  // xarray decodes dtype="bool" only without a _FillValue
    std::vector<std::byte> fill;
    append_fill(fill, FieldSpec{row.name, row.dtype, {}, {}}, 1);
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate(H5S_SCALAR));
    const auto type = hdf5::native_type(row.dtype);
    auto attr = SHARDRUN_H5_OPEN(Attribute, H5Acreate2(dataset, "_FillValue", type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
    SHARDRUN_H5_CHECK(H5Awrite(attr.get(), type, fill.data()));
}

/** Labels the assembled field: `item` on axis 0, `<field>_dim<k>` on axis k (the declared axis numbers). */
void label(hid_t file, hid_t group, hid_t dataset, const std::string& name, std::uint64_t task_count, const ItemIds* ids)
{
    const auto dims = hdf5::dataset_extents(dataset);
    // With one row per task, [N, ...] is [T, ...]: write_dimensions labels it with `task`.
    if (dims.empty() || dims[0] == task_count) return;
    auto item = [&] {
        if (hdf5::has_link(group, "item")) return SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, "item", H5P_DEFAULT));
        if (ids == nullptr) return hdf5::create_bare_dimension(file, group, "item", dims[0]);
        // data.id: the ids are the item dimension's coordinates.
        auto scale = write_item_id_column(group, "item", *ids, static_cast<std::size_t>(dims[0]));
        hdf5::make_dimension_scale(file, scale.get());
        return scale;
    }();
    hdf5::attach_dimension_scale(dataset, item.get(), 0);
    for (std::size_t axis = 1; axis < dims.size(); ++axis) {
        auto scale = hdf5::create_bare_dimension(file, group, name + "_dim" + std::to_string(axis), dims[axis]);
        hdf5::attach_dimension_scale(dataset, scale.get(), static_cast<unsigned>(axis));
    }
}

void assemble_field(hid_t file, hid_t group, const FieldSpec& field, const ItemLayout& layout,
                    const ItemRowsBudget& budget, const ItemIds* ids)
{
    const auto row = row_spec(field);
    const std::size_t tasks = layout.rows.size();
    const std::size_t task_bytes = field.bytes();
    const std::size_t row_bytes = row.bytes();
    std::string target = field.name;
    if (tasks * task_bytes <= budget.whole_bytes) {
        auto data = [&] {
            auto old = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, field.name.c_str(), H5P_DEFAULT));
            return hdf5::read_field_block(old.get(), field, 0, tasks);
        }();
        pack(data.data(), layout, 0, tasks, task_bytes, row_bytes);
        replace(group, field.name, field.name);
        auto fresh = create_field(group, field.name, row, layout.total);
        hdf5::write_field_block(fresh.get(), row, 0, layout.total, data.data());
    } else {
        target = field.name + ".assembling";
        auto fresh = create_field(group, target, row, layout.total);
        auto old = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, field.name.c_str(), H5P_DEFAULT));
        for (std::size_t first = 0; first < tasks;) {
            const auto end = block_end(first, tasks, task_bytes, budget.block_bytes);
            auto data = hdf5::read_field_block(old.get(), field, first, end - first);
            const auto packed = pack(data.data(), layout, first, end, task_bytes, row_bytes);
            hdf5::write_field_block(fresh.get(), row, layout.offset[first], packed / std::max<std::size_t>(1, row_bytes), data.data());
            first = end;
        }
        old.reset();
        fresh.reset();
        replace(group, field.name, target);
    }
    auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, field.name.c_str(), H5P_DEFAULT));
    hdf5::write_attr(dataset.get(), "item_chunk", static_cast<std::int64_t>(field.shape[0]));
    write_fill_attr(dataset.get(), row);
    label(file, group, dataset.get(), field.name, tasks, ids);
}

void split_field(hid_t file, hid_t group, const std::string& name, std::size_t chunk, const ItemRowsBudget& budget)
{
    auto row = [&] {
        auto spec = hdf5::field_spec_of(group, name);
        spec.units = hdf5::read_string_attr(
            SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT)).get(), "units").value_or("");
        return spec;
    }();
    auto padded = row;
    padded.shape.insert(padded.shape.begin(), chunk);
    const auto tasks = hdf5::column_length(file, "ranges/start");
    const std::string target = name + ".splitting";
    {
        auto fresh = create_field(group, target, padded, tasks);
        auto old = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
        ItemRowsReader reader(file);
        for (std::size_t first = 0; first < tasks;) {
            const auto end = block_end(first, tasks, padded.bytes(), budget.block_bytes);
            const auto block = reader.read(old.get(), padded, first, end - first);
            hdf5::write_field_block(fresh.get(), padded, first, end - first, block.data());
            first = end;
        }
    }
    replace(group, name, target);
}

/** Names of the /results datasets marked `item_chunk`, with their chunk. */
std::vector<std::pair<std::string, std::size_t>> assembled_fields(hid_t group)
{
    H5G_info_t info;
    SHARDRUN_H5_CHECK(H5Gget_info(group, &info));
    std::vector<std::pair<std::string, std::size_t>> found;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
        const auto size = SHARDRUN_H5_CHECK(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT));
        std::string name(static_cast<std::size_t>(size) + 1, '\0');
        SHARDRUN_H5_CHECK(H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT));
        name.resize(static_cast<std::size_t>(size));
        if (SHARDRUN_H5_CHECK(H5Aexists_by_name(group, name.c_str(), "item_chunk", H5P_DEFAULT)) <= 0) continue;
        auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group, name.c_str(), H5P_DEFAULT));
        found.emplace_back(name, static_cast<std::size_t>(hdf5::read_int_attr(dataset.get(), "item_chunk").value_or(1)));
    }
    return found;
}

}  // namespace

void assemble_item_rows(hid_t file, const std::vector<FieldSpec>& fields, const ItemRowsBudget& budget, const ItemIds* ids)
{
    const bool any = std::any_of(fields.begin(), fields.end(), [](const FieldSpec& f) { return f.item_rows; });
    if (!any || !hdf5::has_link(file, "ranges/start") || !hdf5::has_link(file, "results")) return;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "results", H5P_DEFAULT));
    for (const auto& field : fields) {
        if (!field.item_rows || field.shape.empty() || !hdf5::has_link(group.get(), field.name)) continue;
        if (SHARDRUN_H5_CHECK(H5Aexists_by_name(group.get(), field.name.c_str(), "item_chunk", H5P_DEFAULT)) > 0) continue;
        const auto layout = item_layout(file, field.shape[0]);
        const auto dims = [&] {
            auto dataset = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(group.get(), field.name.c_str(), H5P_DEFAULT));
            return hdf5::dataset_extents(dataset.get());
        }();
        if (dims.size() != field.shape.size() + 1 || dims[0] != layout.rows.size() || dims[1] != field.shape[0]) {
            SHARDRUN_THROW(Hdf5Error, "results/" + field.name + " is not [tasks, chunk, ...]; cannot assemble its rows over items");
        }
        assemble_field(file, group.get(), field, layout, budget, ids);
    }
}

void split_item_rows(hid_t file, const ItemRowsBudget& budget)
{
    if (!hdf5::has_link(file, "results") || !hdf5::has_link(file, "ranges/start")) return;
    auto group = SHARDRUN_H5_OPEN(Group, H5Gopen2(file, "results", H5P_DEFAULT));
    for (const auto& [name, chunk] : assembled_fields(group.get())) split_field(file, group.get(), name, chunk, budget);
}

bool ItemRowsReader::assembled(hid_t dataset)
{
    return SHARDRUN_H5_CHECK(H5Aexists(dataset, "item_chunk")) > 0;
}

std::vector<std::uint64_t> ItemRowsReader::task_rows(std::uint64_t first, std::size_t count, std::uint64_t chunk) const
{
    auto ranges = SHARDRUN_H5_OPEN(Group, H5Gopen2(file_, "ranges", H5P_DEFAULT));
    auto start_set = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(ranges.get(), "start", H5P_DEFAULT));
    auto end_set = SHARDRUN_H5_OPEN(Dataset, H5Dopen2(ranges.get(), "end", H5P_DEFAULT));
    const auto start = hdf5::read_column_block<std::int64_t>(start_set.get(), H5T_NATIVE_INT64, first, count);
    const auto end = hdf5::read_column_block<std::int64_t>(end_set.get(), H5T_NATIVE_INT64, first, count);
    std::vector<std::uint64_t> rows(count);
    for (std::size_t t = 0; t < count; ++t) {
        rows[t] = rows_of(start[t], end[t], chunk);
    }
    return rows;
}

std::uint64_t ItemRowsReader::offset_of(std::uint64_t task, std::uint64_t chunk)
{
    if (chunk != chunk_ || task < task_) task_ = offset_ = 0, chunk_ = chunk;
    constexpr std::uint64_t block = 1 << 16;
    while (task_ < task) {
        const auto count = static_cast<std::size_t>(std::min(block, task - task_));
        for (const auto rows : task_rows(task_, count, chunk)) offset_ += rows;
        task_ += count;
    }
    return offset_;
}

std::vector<std::byte> ItemRowsReader::read(hid_t dataset, const FieldSpec& padded, std::uint64_t first, std::size_t count)
{
    const auto chunk = padded.shape.at(0);
    const auto row = row_spec(padded);
    const auto rows = task_rows(first, count, chunk);
    const auto offset = offset_of(first, chunk);
    std::uint64_t total = 0;
    for (const auto r : rows) total += r;
    const auto packed = total == 0 ? std::vector<std::byte>() : hdf5::read_field_block(dataset, row, offset, total);
    std::vector<std::byte> out;
    out.reserve(count * padded.bytes());
    const std::byte* at = packed.data();
    for (const auto r : rows) {
        out.insert(out.end(), at, at + r * row.bytes());
        append_fill(out, row, chunk - r);
        at += r * row.bytes();
    }
    task_ = first + count;
    offset_ = offset + total;
    return out;
}

}  // namespace shardrun::io::master
