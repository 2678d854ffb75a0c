#include "collectives/buckets/gradient_buckets.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <stdexcept>

namespace shardrun::collectives {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to)
{
    return std::chrono::duration<double>(to - from).count();
}

}  // namespace

std::vector<BucketSlot> plan_buckets(std::span<const std::size_t> sizes, std::size_t element_bytes,
                                     std::size_t cap_bytes, std::size_t first_cap_bytes)
{
    std::vector<BucketSlot> slots;
    std::size_t bucket = 0, filled = 0;
    for (const auto size : sizes) {
        const auto cap = (bucket == 0 ? first_cap_bytes : cap_bytes) / element_bytes;
        if (filled > 0 && filled + size > cap) {
            ++bucket;
            filled = 0;
        }
        slots.push_back({bucket, filled, size});
        filled += size;
    }
    return slots;
}

struct GradientBuckets::State {
    explicit State(Communicator& c) : comm(c) {}

    Communicator& comm;
    std::vector<BucketSlot> slots;
    std::vector<std::vector<float>> owned;    // the buffers when the caller gives none
    std::vector<float*> buffers;              // one flat buffer per bucket
    // With owned buffers the average goes out of place into a second buffer, then the two swap:
    // Open MPI's non-blocking allreduce picks a binomial reduce + broadcast for any in-place call
    // (and below 4 ranks), about half the bandwidth of its ring.
    std::vector<float*> results;
    std::vector<std::size_t> lengths;         // elements of each bucket
    std::function<void()> before_launch;
    std::vector<std::size_t> waiting;         // tensors of each bucket not ready yet
    std::vector<std::size_t> tensors;         // tensors of each bucket
    std::vector<Request> in_flight;
    std::vector<bool> launched, done;
    std::vector<bool> ready;                  // per tensor, this step
    bool started = false;
    Clock::time_point first_start;
    Clock::time_point last_done;
    // The progress thread, when asked for: MPI advances a non-blocking collective only inside
    // MPI calls, so without it a bucket moves only when the next gradient is marked ready.
    std::mutex mutex;
    std::thread thread;
    std::atomic<bool> stop{false};
    std::atomic<int> active{0};

    void progress()
    {
        for (std::size_t b = 0; b < in_flight.size(); ++b) {
            if (launched[b] && !done[b] && in_flight[b].test()) complete(b);
        }
    }

    void complete(std::size_t b)
    {
        done[b] = true;
        --active;
        last_done = Clock::now();
        if (!results.empty()) std::swap(buffers[b], results[b]);
    }

    void progress_loop()
    {
        while (!stop.load()) {
            if (active.load() > 0) {
                std::lock_guard lock(mutex);
                progress();
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
};

GradientBuckets::GradientBuckets(Communicator& comm, std::vector<std::size_t> sizes, std::size_t cap_bytes,
                                 std::size_t first_cap_bytes, bool progress_thread)
    : state_(std::make_unique<State>(comm))
{
    auto& s = *state_;
    s.slots = plan_buckets(sizes, sizeof(float), cap_bytes, first_cap_bytes);
    const auto buckets = s.slots.empty() ? 0 : s.slots.back().bucket + 1;
    s.owned.resize(2 * buckets);
    for (const auto& slot : s.slots) {
        s.owned[slot.bucket].resize(slot.offset + slot.size);
        s.owned[buckets + slot.bucket].resize(slot.offset + slot.size);
    }
    for (std::size_t b = 0; b < buckets; ++b) {
        s.buffers.push_back(s.owned[b].data());
        s.results.push_back(s.owned[buckets + b].data());
    }
    start(progress_thread);
}

GradientBuckets::GradientBuckets(Communicator& comm, std::vector<BucketSlot> slots, std::vector<float*> buffers,
                                 std::function<void()> before_launch, bool progress_thread)
    : state_(std::make_unique<State>(comm))
{
    auto& s = *state_;
    s.slots = std::move(slots);
    s.buffers = std::move(buffers);
    s.before_launch = std::move(before_launch);
    const auto buckets = s.slots.empty() ? 0 : s.slots.back().bucket + 1;
    if (s.buffers.size() != buckets) throw std::invalid_argument("GradientBuckets: one buffer per bucket of the plan");
    start(progress_thread);
}

void GradientBuckets::start(bool progress_thread)
{
    auto& s = *state_;
    const auto buckets = s.buffers.size();
    s.tensors.assign(buckets, 0);
    s.lengths.assign(buckets, 0);
    for (const auto& slot : s.slots) {
        s.lengths[slot.bucket] = std::max(s.lengths[slot.bucket], slot.offset + slot.size);
        ++s.tensors[slot.bucket];
    }
    s.waiting = s.tensors;
    s.in_flight.resize(buckets);
    s.launched.assign(buckets, false);
    s.done.assign(buckets, false);
    s.ready.assign(s.slots.size(), false);
    if (progress_thread && s.comm.size() > 1) s.thread = std::thread([state = state_.get()] { state->progress_loop(); });
}

GradientBuckets::~GradientBuckets()
{
    state_->stop.store(true);
    if (state_->thread.joinable()) state_->thread.join();
}

std::size_t GradientBuckets::bucket_count() const noexcept { return state_->buffers.size(); }

std::span<float> GradientBuckets::gradient(std::size_t i)
{
    const auto& slot = state_->slots.at(i);
    return std::span<float>(state_->buffers[slot.bucket] + slot.offset, slot.size);
}

void GradientBuckets::mark_ready(std::size_t i)
{
    auto& s = *state_;
    std::lock_guard lock(s.mutex);
    const auto bucket = s.slots.at(i).bucket;
    if (s.ready[i]) throw std::logic_error("mark_ready: a tensor was marked twice in one step");
    s.ready[i] = true;
    s.progress();
    if (--s.waiting[bucket] > 0) return;
    if (!s.started) {
        s.started = true;
        s.first_start = Clock::now();
    }
    // avg: every rank's gradient is its local batch mean; the global mean is their average.
    if (s.before_launch) s.before_launch();
    const std::span<float> gradients(s.buffers[bucket], s.lengths[bucket]);
    s.in_flight[bucket] = s.results.empty()
                              ? s.comm.iallreduce(gradients, ReduceOp::avg)
                              : s.comm.iallreduce(std::span<const float>(gradients),
                                                  std::span<float>(s.results[bucket], s.lengths[bucket]), ReduceOp::avg);
    s.launched[bucket] = true;
    ++s.active;
}

BucketTimes GradientBuckets::wait()
{
    auto& s = *state_;
    std::lock_guard lock(s.mutex);
    for (std::size_t b = 0; b < s.waiting.size(); ++b) {
        if (s.waiting[b] != 0) throw std::logic_error("wait: a bucket has tensors that were never marked ready");
    }
    const auto backward_done = Clock::now();
    s.progress();
    for (std::size_t b = 0; b < s.in_flight.size(); ++b) {
        if (s.done[b]) continue;
        s.in_flight[b].wait();
        s.complete(b);
    }
    const auto end = Clock::now();
    BucketTimes times;
    if (s.started) {
        times.communication = seconds_between(s.first_start, s.last_done);
        times.exposed = seconds_between(backward_done, end);
    }
    s.waiting = s.tensors;
    s.launched.assign(s.launched.size(), false);
    s.done.assign(s.done.size(), false);
    s.ready.assign(s.ready.size(), false);
    s.started = false;
    return times;
}

}  // namespace shardrun::collectives
