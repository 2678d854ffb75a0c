#include "runner/run/loop/work_source.hpp"

#include <algorithm>

namespace shardrun::run {
namespace {

class StaticSource : public WorkSource {
public:
    explicit StaticSource(placement::IdBatch batch) : batch_(batch) {}
    placement::IdBatch next() override
    {
        const auto batch = batch_;
        batch_.count = 0;
        return batch;
    }

private:
    placement::IdBatch batch_;
};

// Claims sized from this rank's own task time (placement::adaptive_claim) into its slot in
// node shared memory, and hands the ids out one at a time, so ids it has not started stay
// where a claimer of its node that runs dry can take them back (collectives::fill_slot).
class DynamicSource : public WorkSource {
public:
    DynamicSource(const job::ScheduleSpec& schedule, placement::IdRange element, int groups, int slots,
                  collectives::WorkCounters& counters)
        : claims_(element, groups, schedule.min_claim, schedule.max_claim), min_claim_(schedule.min_claim),
          max_claim_(schedule.max_claim), slots_(slots), counters_(counters)
    {
        // The claim service grants no number past the last block (a copy counts them: a sequence only goes forward).
        placement::ClaimSequence count(element, groups, schedule.min_claim, schedule.max_claim);
        std::uint64_t numbers = 0;
        while (count.claim(numbers).count > 0) ++numbers;
        counters_.set_claim_numbers(numbers);
    }
    placement::IdBatch next() override
    {
        while (!done_) {
            if (const auto id = counters_.take_id()) return {*id, 1, 1};
            const auto want = placement::adaptive_claim(seconds_per_task_, slots_, placement::claim_span_seconds,
                                                        min_claim_, max_claim_);
            // Claim numbers map to the fixed blocks of ClaimSequence (today's shrinking sizes,
            // so a node's refills are as many as before); a claim takes `want` ids out of one.
            const auto block_of = [this](std::uint64_t number) {
                const auto block = claims_.claim(number);
                return collectives::IdSpan{block.first, block.first + block.count};
            };
            done_ = counters_.claim_ids(want, seconds_per_task_ / std::max(slots_, 1), block_of) == 0;
        }
        return {};
    }
    void task_finished(double seconds) override
    {
        // Recent tasks weigh most: in a size sweep the durations follow the ids.
        seconds = std::max(seconds, 1e-9);
        seconds_per_task_ = seconds_per_task_ == 0 ? seconds : 0.7 * seconds_per_task_ + 0.3 * seconds;
    }
    placement::IdBatch release() override
    {
        const auto rest = counters_.release_ids();
        return {rest.first, rest.size(), 1};
    }
    bool shared() const noexcept override { return true; }

private:
    placement::ClaimSequence claims_;
    std::uint64_t min_claim_, max_claim_;
    int slots_;
    collectives::WorkCounters& counters_;
    double seconds_per_task_ = 0;  // 0 until a task has ended
    bool done_ = false;
};

class ListSource : public WorkSource {
public:
    explicit ListSource(std::vector<placement::IdBatch> batches) : batches_(std::move(batches)) {}
    placement::IdBatch next() override { return next_ < batches_.size() ? batches_[next_++] : placement::IdBatch{}; }

private:
    std::vector<placement::IdBatch> batches_;
    std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<WorkSource> make_list_source(std::vector<placement::IdBatch> batches)
{
    return std::make_unique<ListSource>(std::move(batches));
}

std::unique_ptr<WorkSource> make_work_source(const job::ScheduleSpec& schedule, placement::IdRange element,
                                             const placement::GroupLayout& group, collectives::WorkCounters& counters,
                                             int slots)
{
    if (group.rank_in_group != 0) return std::make_unique<StaticSource>(placement::IdBatch{});
    switch (schedule.kind) {
    case job::ScheduleKind::block:
        return std::make_unique<StaticSource>(placement::block_share(element, group.group, group.groups));
    case job::ScheduleKind::cyclic:
        return std::make_unique<StaticSource>(placement::cyclic_share(element, group.group, group.groups));
    case job::ScheduleKind::dynamic: break;
    }
    return std::make_unique<DynamicSource>(schedule, element, group.groups, slots, counters);
}

}  // namespace shardrun::run
