#pragma once

// @internal The waitable handle of base::Communicator's non-blocking operations
// (base/communicator.hpp), header-only like the rest of base/.
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <vector>

namespace shardrun::base {

/** A started non-blocking operation; the backend's state behind it is opaque. */
class PendingOperation {
public:
    virtual ~PendingOperation() = default;
    /** True once complete (then finishing work such as avg's division has been done). */
    virtual bool test() = 0;
    virtual void wait() = 0;
    /**
     * Lets go of an operation nobody will wait for. True when it was released (a message's
     * request freed: the library completes it on its own); false when it must be leaked
     * instead (a collective's request may not be freed).
     */
    virtual bool release_unwaited() noexcept { return false; }
};

/**
 * Keeps memory an abandoned operation may still write into alive, and reachable, until the
 * process exits: the late member's data can still arrive, and a leak checker must not call it
 * lost.
 */
inline void keep_until_exit(std::shared_ptr<const void> kept) noexcept
{
    // Never destroyed: an abandoned operation outlives every static destructor (MPI may complete
    // it during MPI_Finalize), and the pointer keeps what it holds reachable.
    struct KeptAlive {
        std::mutex mutex;
        std::vector<std::shared_ptr<const void>> objects;
    };
    static auto* alive = new (std::nothrow) KeptAlive;
    try {
        if (alive == nullptr) throw std::bad_alloc();
        const std::lock_guard lock(alive->mutex);
        alive->objects.push_back(std::move(kept));
    } catch (...) {
        static_cast<void>(new (std::nothrow) std::shared_ptr<const void>(std::move(kept)));  // never freed, on purpose
    }
}

/**
 * A waitable handle of a non-blocking collective or message. The buffers it was started with
 * must stay alive until wait() returns or test() returned true. Destroying an unfinished
 * request waits for it.
 */
class Request {
public:
    Request() = default;
    explicit Request(std::unique_ptr<PendingOperation> operation) : operation_(std::move(operation)) {}
    Request(Request&&) noexcept = default;
    Request& operator=(Request&& other) noexcept
    {
        if (this != &other) {
            if (operation_) operation_->wait();
            operation_ = std::move(other.operation_);
        }
        return *this;
    }
    ~Request()
    {
        // A request dropped unfinished would leave the backend writing into freed buffers.
        if (operation_) operation_->wait();
    }

    /** Blocks until complete. A default-constructed request is complete. */
    void wait()
    {
        if (!operation_) return;
        operation_->wait();
        operation_.reset();
    }
    /** True when complete; never blocks. */
    bool test()
    {
        if (!operation_) return true;
        if (!operation_->test()) return false;
        operation_.reset();
        return true;
    }
    /**
     * Gives up on an operation that will never complete (a member that never joined): drops
     * it without waiting. Its buffers must outlive the process's use of MPI; callers do this
     * only on the way to ending the job.
     */
    void abandon() noexcept
    {
        if (!operation_) return;
        if (operation_->release_unwaited()) {
            operation_.reset();
            return;
        }
        try {
            keep_until_exit(std::shared_ptr<PendingOperation>(std::move(operation_)));
        } catch (...) {
            (void)operation_.release();  // no memory for the keeper on the way out: leaking is the safe choice
        }
    }

private:
    std::unique_ptr<PendingOperation> operation_;
};

/** Waits for every request. */
inline void wait_all(std::span<Request> requests)
{
    for (auto& request : requests) request.wait();
}

}  // namespace shardrun::base
