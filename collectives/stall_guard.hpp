#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "collectives/communicator.hpp"

namespace shardrun::collectives {

/** A member did not join a collective in time. The message names the collective, the group and the missing members. */
class CollectiveStall : public Error {
public:
    CollectiveStall(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

/**
 * A communicator whose collectives end with CollectiveStall instead of hanging when a member
 * does not take part within `timeout_seconds`. Entering a collective, each member tells every
 * other one so with a small message. When the collective has not completed by the deadline,
 * the waiting member pings the others; members waiting in a guarded collective answer at
 * once, so the ones that do not answer within a few seconds are the culprits: stopped, hung or
 * busy elsewhere. They are named, with whether they entered the collective. This costs
 * 2 (size - 1) small messages per collective, which is why it guards groups (a task's few
 * members), not the world. Point-to-point messages pass through unguarded.
 * After a stall the communicator is unusable: its collective never completes. Blocking forms
 * leave the caller's buffers alone after a stall; non-blocking ones cannot, so their buffers
 * must be kept until the process ends (it should end: see the runner, which aborts the job).
 */
class StallGuard final : public Communicator {
public:
    /**
     * @param inner  the communicator to guard (kept by reference)
     * @param timeout_seconds  per collective; 0 or less: no deadline
     * @param member_names  how to name each member in messages ("world rank 3 on node-b")
     * @param group_name  how to name the communicator ("group 2")
     */
    StallGuard(Communicator& inner, double timeout_seconds, std::vector<std::string> member_names,
               std::string group_name);

    int rank() const noexcept override { return inner_.rank(); }
    int size() const noexcept override { return inner_.size(); }
    std::unique_ptr<Communicator> split(int color, int key) const override { return inner_.split(color, key); }

    void barrier() override;
    Request ibarrier() override;
    void broadcast_raw(void* data, std::size_t count, DataType type, int root) override;
    Request ibroadcast_raw(void* data, std::size_t count, DataType type, int root) override;
    void allreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;
    Request iallreduce_raw(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op) override;
    void allgather_raw(const void* send, void* recv, std::size_t count, DataType type) override;
    Request iallgather_raw(const void* send, void* recv, std::size_t count, DataType type) override;
    void reduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type, ReduceOp op) override;
    Request ireduce_scatter_raw(const void* send, void* recv, std::size_t recv_count, DataType type,
                                ReduceOp op) override;
    void send_raw(const void* data, std::size_t count, DataType type, int dest, int tag) override;
    Request isend_raw(const void* data, std::size_t count, DataType type, int dest, int tag) override;
    void recv_raw(void* data, std::size_t count, DataType type, int source, int tag) override;
    Request irecv_raw(void* data, std::size_t count, DataType type, int source, int tag) override;
    bool iprobe(int source, int tag) override { return inner_.iprobe(source, tag); }

private:
    /** @param bytes  what the operation moves, roughly: how long its wait polls without pause */
    Request guard(const char* name, std::size_t bytes, Request operation);
    void run_blocking(const char* name, std::size_t in_bytes, const void* in, std::size_t out_bytes, void* out,
                      const std::function<Request(std::byte*, std::byte*)>& start);

    Communicator& inner_;
    double timeout_seconds_;
    std::vector<std::string> member_names_;
    std::string group_name_;
    std::int64_t sequence_ = 0;
    std::unique_ptr<std::byte[]> scratch_;  ///< the blocking collectives' copy of their buffers
    std::size_t scratch_bytes_ = 0;
};

}  // namespace shardrun::collectives
