#include "runner/placement/placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "runner/errors.hpp"

namespace shardrun::placement {

IdRange array_block(std::uint64_t task_count, std::uint64_t index, std::uint64_t count) noexcept
{
    const auto base = task_count / count;
    const auto extra = task_count % count;
    const auto first = index * base + std::min(index, extra);
    return {first, first + base + (index < extra ? 1 : 0)};
}

GroupLayout group_layout(int rank, int world_size, int gpus_per_task)
{
    if (gpus_per_task < 1 || world_size % gpus_per_task != 0) {
        throw UsageError(fmt::format("gpus_per_task: {} does not divide the {} ranks; use a rank count that is a "
                                     "multiple of {} or change gpus_per_task",
                                     gpus_per_task, world_size, gpus_per_task));
    }
    return {world_size / gpus_per_task, rank / gpus_per_task, rank % gpus_per_task};
}

IdBatch block_share(IdRange range, int group, int groups) noexcept
{
    const auto share = array_block(range.size(), static_cast<std::uint64_t>(group), static_cast<std::uint64_t>(groups));
    return {range.first + share.first, share.size(), 1};
}

IdBatch cyclic_share(IdRange range, int group, int groups) noexcept
{
    const auto g = static_cast<std::uint64_t>(group);
    const auto n = static_cast<std::uint64_t>(groups);
    const auto count = range.size() > g ? (range.size() - g + n - 1) / n : 0;
    return {range.first + g, count, n};
}

std::uint64_t claim_size(std::uint64_t remaining, int groups, std::uint64_t min_claim, std::uint64_t max_claim) noexcept
{
    const auto divisor = 2 * static_cast<std::uint64_t>(groups);
    auto size = std::max<std::uint64_t>((remaining + divisor - 1) / divisor, std::max<std::uint64_t>(min_claim, 1));
    if (max_claim > 0) size = std::min(size, max_claim);
    return std::min(size, remaining);
}

ClaimSequence::ClaimSequence(IdRange range, int groups, std::uint64_t min_claim, std::uint64_t max_claim) noexcept
    : range_(range), groups_(groups), min_claim_(min_claim), max_claim_(max_claim), cursor_start_(range.first)
{
}

IdBatch ClaimSequence::claim(std::uint64_t number) noexcept
{
    while (cursor_number_ < number && cursor_start_ < range_.last) {
        cursor_start_ += claim_size(range_.last - cursor_start_, groups_, min_claim_, max_claim_);
        ++cursor_number_;
    }
    if (cursor_number_ < number || cursor_start_ >= range_.last) return {range_.last, 0, 1};
    return {cursor_start_, claim_size(range_.last - cursor_start_, groups_, min_claim_, max_claim_), 1};
}

}  // namespace shardrun::placement
