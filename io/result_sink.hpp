#pragma once

#include <mutex>

#include "io/library_info.hpp"
#include "io/result_types.hpp"

namespace shardrun::io {

/**
 * Where one rank's finished tasks go. The runner calls record() once per finished task
 * (ok or failed after its last attempt) and commit() at batch boundaries and at the end;
 * what commit() returned from survives a kill -9.
 *
 * HDF5 is not thread-safe in the Debian build, and a rank's slots finish tasks on several
 * threads: record() and commit() hold hdf5_mutex() for the whole call, so callers need no lock
 * of their own. Implementations override record_locked() and commit_locked(), which run with
 * it held (and may call each other: an auto-commit from record_locked()).
 */
class ResultSink {
public:
    virtual ~ResultSink() = default;

    /** Buffers one finished task. @param values  empty when record.status != ok */
    void record(const TaskRecord& record, const TaskValues& values)
    {
        const std::lock_guard lock(hdf5_mutex());
        record_locked(record, values);
    }

    /**
     * Makes every task recorded so far durable. Costs a file and two fsyncs (layout
     * shards) or two collective flushes (single): call it every few seconds or few
     * thousand tasks and at the end, not after every task.
     */
    void commit()
    {
        const std::lock_guard lock(hdf5_mutex());
        commit_locked();
    }

protected:
    virtual void record_locked(const TaskRecord& record, const TaskValues& values) = 0;
    virtual void commit_locked() = 0;
};

}  // namespace shardrun::io
