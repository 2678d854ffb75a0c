#include "runner/run/shared_counters.hpp"

#include <mpi.h>

#include "collectives/mpi/mpi_error.hpp"

namespace shardrun::run {
namespace {

enum Slot : int { claim_slot = 0, ok_slot = 1, failed_slot = 2, running_slot = 3, slot_count = 4 };

MPI_Win& win(void*& handle) { return *static_cast<MPI_Win*>(handle); }

}  // namespace

SharedCounters::SharedCounters()
{
    int rank = 0;
    SHARDRUN_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    window_ = new MPI_Win(MPI_WIN_NULL);
    const MPI_Aint bytes = rank == 0 ? slot_count * sizeof(std::int64_t) : 0;
    SHARDRUN_MPI_CHECK(MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &base_,
                                        &win(window_)));
    if (rank == 0) {
        SHARDRUN_MPI_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win(window_)));
        for (int i = 0; i < slot_count; ++i) base_[i] = 0;
        SHARDRUN_MPI_CHECK(MPI_Win_unlock(0, win(window_)));
    }
    SHARDRUN_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    SHARDRUN_MPI_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win(window_)));
}

SharedCounters::~SharedCounters()
{
    MPI_Win_unlock_all(win(window_));
    MPI_Win_free(&win(window_));
    delete static_cast<MPI_Win*>(window_);
}

std::uint64_t SharedCounters::next_claim()
{
    const std::int64_t one = 1;
    std::int64_t claim = 0;
    SHARDRUN_MPI_CHECK(MPI_Fetch_and_op(&one, &claim, MPI_INT64_T, 0, claim_slot, MPI_SUM, win(window_)));
    SHARDRUN_MPI_CHECK(MPI_Win_flush(0, win(window_)));
    return static_cast<std::uint64_t>(claim);
}

void SharedCounters::add_progress(const ProgressCounts& delta)
{
    const std::int64_t values[3] = {delta.ok, delta.failed, delta.running};
    SHARDRUN_MPI_CHECK(MPI_Accumulate(values, 3, MPI_INT64_T, 0, ok_slot, 3, MPI_INT64_T, MPI_SUM, win(window_)));
    SHARDRUN_MPI_CHECK(MPI_Win_flush(0, win(window_)));
}

ProgressCounts SharedCounters::read_progress()
{
    std::int64_t values[3] = {0, 0, 0};
    SHARDRUN_MPI_CHECK(MPI_Get_accumulate(nullptr, 0, MPI_INT64_T, values, 3, MPI_INT64_T, 0, ok_slot, 3,
                                          MPI_INT64_T, MPI_NO_OP, win(window_)));
    SHARDRUN_MPI_CHECK(MPI_Win_flush(0, win(window_)));
    return {values[0], values[1], values[2]};
}

void SharedCounters::poll()
{
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

}  // namespace shardrun::run
