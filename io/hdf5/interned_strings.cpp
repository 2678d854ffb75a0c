#include "io/hdf5/interned_strings.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "io/hdf5/types.hpp"

namespace shardrun::io::hdf5 {
namespace {

/** 1 MiB chunks of 16-byte references: large sequential writes, one read back per new value's chunk. */
constexpr std::uint64_t max_chunk_rows = 65536;

/** Distinct values remembered; beyond it the column forgets them (and stops sharing old ones) to bound memory. */
constexpr std::size_t max_distinct = 4096;

constexpr std::size_t not_stored = static_cast<std::size_t>(-1);

}  // namespace

InternedStringColumn::InternedStringColumn(hid_t parent, const std::string& name, std::uint64_t count)
    : count_(count), chunk_rows_(std::clamp<std::uint64_t>(count, 1, max_chunk_rows))
{
    const hsize_t extent = count;
    const hsize_t chunk = chunk_rows_;
    auto space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &extent, nullptr));
    auto dcpl = SHARDRUN_H5_OPEN(PropList, H5Pcreate(H5P_DATASET_CREATE));
    SHARDRUN_H5_CHECK(H5Pset_chunk(dcpl.get(), 1, &chunk));
    const auto type = vlen_string_type();
    dataset_ = SHARDRUN_H5_OPEN(
        Dataset, H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT));
}

void InternedStringColumn::append(const std::vector<std::string>& values)
{
    if (values.size() > count_ - appended_) throw std::logic_error("InternedStringColumn: more rows than the column has");
    std::size_t i = 0;
    while (i < values.size()) {
        const auto chunk_first = appended_ / chunk_rows_ * chunk_rows_;
        const auto chunk_end = std::min(chunk_first + chunk_rows_, count_);
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(values.size() - i, chunk_end - appended_));
        store_new_values(values, i, n);
        chunk_.resize(chunk_rows_ * element_bytes_);
        const std::string* last = nullptr;
        const std::byte* stored = nullptr;
        for (std::size_t k = i; k < i + n; ++k) {
            // Runs of one host are the common case: skip the hash when the value repeats.
            if (!last || values[k] != *last) stored = references_.data() + index_.find(values[k])->second * element_bytes_;
            last = &values[k];
            std::memcpy(chunk_.data() + (appended_ + (k - i) - chunk_first) * element_bytes_, stored, element_bytes_);
        }
        appended_ += n;
        i += n;
        if (appended_ == chunk_end) write_chunk(chunk_first);
    }
}

void InternedStringColumn::finish()
{
    if (appended_ != count_) throw std::logic_error("InternedStringColumn: rows left unwritten");
}

void InternedStringColumn::store_new_values(const std::vector<std::string>& values, std::size_t first, std::size_t n)
{
    if (appended_ % chunk_rows_ == 0 && index_.size() > max_distinct) {
        index_.clear();
        references_.clear();
    }
    std::vector<std::size_t*> slots;
    std::vector<hsize_t> rows;
    std::vector<const char*> texts;
    for (std::size_t k = first; k < first + n; ++k) {
        if (k > first && values[k] == values[k - 1]) continue;
        const auto inserted = index_.try_emplace(values[k], not_stored);
        if (!inserted.second) continue;
        slots.push_back(&inserted.first->second);
        rows.push_back(appended_ + (k - first));
        texts.push_back(values[k].c_str());
    }
    if (slots.empty()) return;
    // The new values' first rows through HDF5's own conversion, which creates their heap objects ...
    auto file_space = SHARDRUN_H5_OPEN(Dataspace, H5Dget_space(dataset_.get()));
    SHARDRUN_H5_CHECK(H5Sselect_elements(file_space.get(), H5S_SELECT_SET, rows.size(), rows.data()));
    const hsize_t count = rows.size();
    auto memory_space = SHARDRUN_H5_OPEN(Dataspace, H5Screate_simple(1, &count, nullptr));
    const auto type = vlen_string_type();
    SHARDRUN_H5_CHECK(H5Dwrite(dataset_.get(), type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT, texts.data()));
    // ... then their stored references, read back from the chunk on disk.
    SHARDRUN_H5_CHECK(H5Dflush(dataset_.get()));
    const hsize_t offset = appended_ / chunk_rows_ * chunk_rows_;
    hsize_t bytes = 0;
    SHARDRUN_H5_CHECK(H5Dget_chunk_storage_size(dataset_.get(), &offset, &bytes));
    if (bytes == 0 || bytes % chunk_rows_ != 0) throw Hdf5Error("unexpected chunk size of a variable-length string column");
    element_bytes_ = static_cast<std::size_t>(bytes / chunk_rows_);
    std::vector<std::byte> stored(static_cast<std::size_t>(bytes));
    std::uint32_t filters = 0;
    SHARDRUN_H5_CHECK(H5Dread_chunk(dataset_.get(), H5P_DEFAULT, &offset, &filters, stored.data()));
    for (std::size_t s = 0; s < slots.size(); ++s) {
        *slots[s] = references_.size() / element_bytes_;
        const auto* at = stored.data() + (rows[s] - offset) * element_bytes_;
        references_.insert(references_.end(), at, at + element_bytes_);
    }
}

void InternedStringColumn::write_chunk(std::uint64_t first_row)
{
    const hsize_t offset = first_row;
    SHARDRUN_H5_CHECK(H5Dwrite_chunk(dataset_.get(), H5P_DEFAULT, 0, &offset, chunk_.size(), chunk_.data()));
}

void write_interned_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values)
{
    InternedStringColumn column(parent, name, values.size());
    column.append(values);
    column.finish();
}

}  // namespace shardrun::io::hdf5
