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
 * does not take part within `timeout_seconds`. A collective costs what the inner non-blocking
 * one costs, polled to completion: no message of the guard's own while it completes within
 * the arm interval, min(1 s, timeout / 4). One still pending then arms: it tells every other
 * member that it entered (a small note carrying the collective's sequence number) and from
 * then on answers pings. At the deadline the waiting member pings the others and waits
 * min(timeout, 3 s), longer than the arm interval, so every member waiting in a guarded
 * collective has armed and answers; the ones that do not are the culprits: stopped, hung or
 * busy elsewhere. They are named, with whether they entered the collective (their note of it,
 * or of a later one, arrived; a member that stopped within the arm interval of entering sent
 * none and reads "never entered it"). Point-to-point messages pass through unguarded.
 * After a stall the communicator is unusable: its collective never completes. Blocking forms
 * never write into the caller's buffers after a stall (MPI receives into a scratch buffer,
 * copied out on completion; a group of two's allreduce reduces each arrived chunk into the
 * caller's buffer itself, inside its own polls, stall_guard_pair.hpp; the caller's input is
 * read in place, which a late member may still read while the job ends); non-blocking forms
 * cannot, so their buffers must be kept until the process
 * ends (it should end: see the runner, which aborts the job).
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
    /**
     * @param bytes  what the operation moves; `start` gets the scratch buffer (at least
     *               `scratch_bytes`) to receive into; `out_bytes` of it are copied to `out` after
     */
    void run_blocking(const char* name, std::size_t bytes, std::size_t out_bytes, void* out,
                      const std::function<Request(std::byte*)>& start, std::size_t scratch_bytes = 0);

    Communicator& inner_;
    double timeout_seconds_;
    std::vector<std::string> member_names_;
    std::string group_name_;
    std::int64_t sequence_ = 0;
    std::vector<std::int64_t> noted_;  ///< per member, the highest collective it noted having entered
    std::unique_ptr<std::byte[]> scratch_;  ///< what the blocking collectives receive into
    std::size_t scratch_bytes_ = 0;
};

}  // namespace shardrun::collectives
