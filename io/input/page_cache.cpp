#include "io/input/page_cache.hpp"

#include <algorithm>
#include <cstring>

#include "io/input/dataset_reader.hpp"

namespace shardrun::io {

PageCache::PageCache(const RangedFile& file, std::uint64_t page_size) : file_(file), page_size_(page_size)
{
    const std::uint64_t head = std::min<std::uint64_t>(file.head.size(), file.size);
    const std::uint64_t pages = head == file.size ? (head + page_size - 1) / page_size : head / page_size;
    for (std::uint64_t page = 0; page < pages; ++page) {
        const auto start = page * page_size;
        pages_[page] = file.head.substr(start, std::min(page_size, head - start));
    }
}

void PageCache::fetch(std::uint64_t first_page, std::uint64_t end_page)
{
    const auto start = first_page * page_size_;
    const auto count = std::min(end_page * page_size_, file_.size) - start;
    const auto bytes = file_.read(start, count);
    if (bytes.size() != count) {
        SHARDRUN_THROW(InputError, file_.name + ": asked for " + std::to_string(count) + " bytes at " +
                                   std::to_string(start) + ", got " + std::to_string(bytes.size()));
    }
    fetched_ += count;
    ++fetches_;
    for (auto page = first_page; page < end_page; ++page) {
        const auto offset = (page - first_page) * page_size_;
        pages_[page] = bytes.substr(offset, std::min(page_size_, count - offset));
    }
}

void PageCache::read(std::uint64_t offset, std::size_t size, char* out)
{
    std::memset(out, 0, size);
    const auto end = std::min<std::uint64_t>(offset + size, file_.size);
    if (offset >= end) return;
    const auto first = offset / page_size_;
    const auto last = (end - 1) / page_size_;
    // One call per run of missing pages.
    for (auto page = first; page <= last;) {
        if (pages_.count(page) != 0) {
            ++page;
            continue;
        }
        auto run_end = page + 1;
        while (run_end <= last && pages_.count(run_end) == 0) ++run_end;
        fetch(page, run_end);
        page = run_end;
    }
    for (auto page = first; page <= last; ++page) {
        const auto& bytes = pages_.at(page);
        const auto page_start = page * page_size_;
        const auto from = std::max(offset, page_start);
        const auto to = std::min(end, page_start + bytes.size());
        if (from < to) std::memcpy(out + (from - offset), bytes.data() + (from - page_start), to - from);
    }
}

}  // namespace shardrun::io
