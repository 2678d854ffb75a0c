#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/** Where a gradient tensor lives: bucket `bucket`, elements [offset, offset + size). */
struct BucketSlot {
    std::size_t bucket = 0;
    std::size_t offset = 0;
    std::size_t size = 0;
};

/**
 * Packs tensors into buckets in the order their gradients are produced (the reverse of the
 * forward order, as PyTorch DDP does): the first bucket is capped at `first_cap_bytes` so its
 * allreduce starts early, the others at `cap_bytes`; a tensor never splits, so a tensor larger
 * than the cap gets a bucket of its own. Every rank computes the same plan from the same sizes.
 * @param sizes  elements of each tensor, in production order
 */
std::vector<BucketSlot> plan_buckets(std::span<const std::size_t> sizes, std::size_t element_bytes,
                                     std::size_t cap_bytes, std::size_t first_cap_bytes);

/** Seconds a step spent on its gradient buckets. */
struct BucketTimes {
    double communication = 0;  ///< from the first bucket's start to the last bucket's completion
    double exposed = 0;        ///< of that, spent waiting in wait() after the backward pass ended
};

/**
 * Gradient buckets that overlap communication with the backward pass (host memory, float).
 * A tensor's gradient is written straight into its bucket (no copy); when the last tensor of
 * a bucket is marked ready, the bucket's average over the communicator starts as a
 * non-blocking allreduce, while the caller goes on computing the next gradients. Every call
 * to mark_ready() also advances the buckets in flight, as MPI progresses non-blocking
 * collectives only inside MPI calls.
 */
class GradientBuckets {
public:
    static constexpr std::size_t default_cap_bytes = 25u << 20;
    static constexpr std::size_t default_first_cap_bytes = 1u << 20;

    /**
     * @param sizes  elements of each tensor, in the order the backward pass produces them
     * @param progress_thread  advance buckets in flight from a background thread every 50 us
     *        (needs a backend that lets threads communicate, MPI_THREAD_MULTIPLE); otherwise
     *        they advance only in mark_ready() and wait()
     */
    GradientBuckets(Communicator& comm, std::vector<std::size_t> sizes, std::size_t cap_bytes = default_cap_bytes,
                    std::size_t first_cap_bytes = default_first_cap_bytes, bool progress_thread = false);
    /**
     * Buckets over memory the caller owns, e.g. device memory for a device (NCCL)
     * communicator: bucket b of `slots` (from plan_buckets) lives at buffers[b].
     * @param before_launch  runs just before each bucket's allreduce starts, e.g. to order
     *        the communicator's stream after the kernels that wrote the gradients
     */
    GradientBuckets(Communicator& comm, std::vector<BucketSlot> slots, std::vector<float*> buffers,
                    std::function<void()> before_launch, bool progress_thread = false);
    ~GradientBuckets();
    GradientBuckets(const GradientBuckets&) = delete;
    GradientBuckets& operator=(const GradientBuckets&) = delete;

    /** Where tensor `i` (production order) writes its gradient (the buffers' memory); valid for the object's life. */
    std::span<float> gradient(std::size_t i);
    /** Tensor `i`'s gradient is complete: its bucket starts once all its tensors are. */
    void mark_ready(std::size_t i);
    /** Waits for every bucket; each gradient then holds its average over the ranks. Resets for the next step. */
    BucketTimes wait();

    std::size_t bucket_count() const noexcept;

private:
    void start(bool progress_thread);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace shardrun::collectives
