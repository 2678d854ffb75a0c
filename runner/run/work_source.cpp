#include "runner/run/work_source.hpp"

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

class DynamicSource : public WorkSource {
public:
    DynamicSource(const job::ScheduleSpec& schedule, placement::IdRange element, int groups, collectives::WorkCounters& counters)
        : claims_(element, groups, schedule.min_claim, schedule.max_claim), counters_(counters) {}
    placement::IdBatch next() override
    {
        if (done_) return {};
        const auto batch = claims_.claim(counters_.next_claim());
        done_ = batch.count == 0;
        return batch;
    }
    bool shared() const noexcept override { return true; }

private:
    placement::ClaimSequence claims_;
    collectives::WorkCounters& counters_;
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
                                             const placement::GroupLayout& group, collectives::WorkCounters& counters)
{
    if (group.rank_in_group != 0) return std::make_unique<StaticSource>(placement::IdBatch{});
    switch (schedule.kind) {
    case job::ScheduleKind::block:
        return std::make_unique<StaticSource>(placement::block_share(element, group.group, group.groups));
    case job::ScheduleKind::cyclic:
        return std::make_unique<StaticSource>(placement::cyclic_share(element, group.group, group.groups));
    case job::ScheduleKind::dynamic: break;
    }
    return std::make_unique<DynamicSource>(schedule, element, group.groups, counters);
}

}  // namespace shardrun::run
